"""Task: what a task kind adds to an architecture's body, and how its runs are judged.

Every model is ``inputs -> scaling -> body -> task head``: the architecture owns
the body, the task owns the head, the loss, the metrics and the evaluation
against baselines on the test split. ``run_experiment`` asks the task for all
of these, so ``metrics.json`` has the shape ``{"model": {...}, "baselines":
{name: {...}}}`` for every task.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from seqlab.data.sequence_data import TASKS, SequenceData
from seqlab.tasks.metrics import METRICS, Metric

if TYPE_CHECKING:
    import keras  # heads import Keras when they build: reading a task's metrics must not import TensorFlow


@dataclass(frozen=True)
class Evaluation:
    """Test-split metrics of the model and its baselines, and the arrays behind them.

    ``predictions`` goes to ``predictions.npz``: at least ``y_true``, ``y_pred``
    and ``origin``, plus ``baseline_<name>`` for every baseline.
    """

    metrics: dict
    predictions: dict[str, np.ndarray]


@dataclass(frozen=True)
class Task:
    """A task kind.

    Attributes:
        name: one of ``TASKS``.
        sequence_outputs: the body returns every step ``(B, T, d)`` (label)
            rather than the last one ``(B, d)``.
        loss, metrics: what ``model.compile`` gets.
        head: ``(data, features) -> outputs``, the layers after the body.
        evaluate: ``(data, outputs) -> Evaluation`` from the model's outputs
            on ``data.splits["test"].x``.
        readout: name of the head's linear ``Dense`` layer, for architectures
            that fit it in closed form (None: no linear readout).
        readout_targets: ``(data, y) -> targets`` of that ``Dense`` layer
            (what it must output for the model to output ``y``).
        test_metrics: what ``evaluate`` reports, in the order shown, with
            their units and direction; the first is the one the task is judged by.
    """

    name: str
    sequence_outputs: bool
    loss: str
    metrics: tuple[str, ...]
    head: Callable[[SequenceData, keras.KerasTensor], keras.KerasTensor]
    evaluate: Callable[[SequenceData, np.ndarray], Evaluation]
    readout: str | None = None
    readout_targets: Callable[[SequenceData, np.ndarray], np.ndarray] | None = None
    test_metrics: tuple[Metric, ...] = ()


def against_baselines(metric: Callable, y_true: np.ndarray, y_pred: np.ndarray, baselines: dict) -> dict:
    """``metrics.json``'s shape: ``metric(y_true, ...)`` of the model and of every baseline.

    Returns ``{"model": metric(y_true, y_pred), "baselines": {name: metric(y_true, b)}}``.
    """
    return {"model": metric(y_true, y_pred), "baselines": {name: metric(y_true, b) for name, b in baselines.items()}}


_REGISTRY: dict[str, Task] = {}


def register_task(task: Task) -> Task:
    if task.name not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task.name!r}.")
    _REGISTRY[task.name] = task
    return task


def get_task(name: str) -> Task:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(
            f"No models can be trained for task {name!r} yet; trainable tasks: {', '.join(_REGISTRY)}."
        ) from None


def ordered_metrics(keys, task: str | None = None) -> list[str]:
    """``keys`` in the order ``task`` shows them (``metrics.json`` stores them sorted by name).

    The task's own metrics come first, the first being its headline; others
    (or every key, for an unknown task) follow in the order of ``METRICS``.
    """
    declared = [m.key for m in _REGISTRY[task].test_metrics] if task in _REGISTRY else []
    rank = {key: i for i, key in enumerate(declared + [k for k in METRICS if k not in declared])}
    return sorted(keys, key=lambda k: (rank.get(k, len(rank)), k))
