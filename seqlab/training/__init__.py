"""Training: the ExperimentSpec, run_experiment, events, devices and background jobs."""

from seqlab.training.experiment import run_experiment
from seqlab.training.spec import ExperimentSpec

__all__ = ["ExperimentSpec", "run_experiment"]
