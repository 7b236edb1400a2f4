"""Training: the ExperimentSpec, run_experiment, events, devices and background jobs."""

from seqlab.training.spec import ExperimentSpec

__all__ = ["ExperimentSpec", "run_experiment"]


def __getattr__(name: str):
    # run_experiment imports TensorFlow: only when it is asked for, so that specs and
    # presets can be listed fast.
    if name == "run_experiment":
        from seqlab.training.experiment import run_experiment

        return run_experiment
    raise AttributeError(f"module 'seqlab.training' has no attribute {name!r}")
