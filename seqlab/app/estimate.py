"""What a training job will cost before it starts: its weights, and its time from an earlier run of the same setting.

The time is measured, not modelled: the most recent finished run of the same
dataset, architecture, data and model options trained some batches in some
seconds; the new job's batches at that rate give the estimate (the first
step's compiling included, so short runs are over-estimated a little).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from seqlab.runs import Run
from seqlab.training.optimizer import total_steps
from seqlab.training.spec import ExperimentSpec


@dataclass(frozen=True)
class Estimate:
    seconds: float
    run_id: str  # the run whose rate it is


def batches(spec: ExperimentSpec, train_windows: int, epochs: int | None = None) -> int:
    """The batches ``spec`` trains over ``train_windows`` in ``epochs`` (default: all of its epochs)."""
    every = total_steps(spec, train_windows)  # a step budget spreads over the epochs
    return every if epochs is None else math.ceil(every * epochs / max(spec.epochs, 1))


def same_setting(run: Run, spec: ExperimentSpec) -> bool:
    """Whether ``run`` trained ``spec``'s dataset, architecture, data and model options (``spec`` resolved)."""
    given = run.spec
    return (
        given.get("dataset") == spec.dataset and given.get("model") == spec.model
        and given.get("data_options") == spec.data_options and given.get("model_options") == spec.model_options
    )


def training_time(runs: list[Run], spec: ExperimentSpec, train_windows: int) -> Estimate | None:
    """Seconds ``spec`` (resolved) will train for, at the rate of the newest finished run of the same setting."""
    for run in sorted(runs, key=lambda r: r.meta.created, reverse=True):
        if run.status != "completed" or not run.meta.epochs_run or not same_setting(run, spec):
            continue
        then = ExperimentSpec.from_dict(run.spec)
        done = batches(then, train_windows, run.meta.epochs_run)
        if done and run.meta.train_seconds:
            return Estimate(run.meta.train_seconds / done * batches(spec, train_windows), run.run_id)
    return None
