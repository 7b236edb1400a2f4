"""Per-task dashboard views: registered where each view is defined, chosen by the run's task.

A page never asks ``if task == ...``: it looks the run's task up in one of
these registries. A new task kind adds its views with ``@view_for(REGISTRY,
"its_task")`` beside their code; a task without a view gets the page's
fallback (the metrics alone, or the raw outputs).

Registries and the signature of their views:
    PREDICTIONS  (run, preds, data, key) -> None: the test-split figure.
    SERVING      (run, data, i, served, stored, key) -> [(label, value)]: the
                 SavedModel's prediction of test item ``i`` drawn; metric cards.
    OUTCOMES     (run, data, outputs, y_true) -> None: Inspect's answer for one input.
    OUTPUT_TEXT  (meta) -> str: what a run predicts, for the runs table's line.
    PLAN_TEXT    (facts) -> str: what a training job will see and predict.
    DATA_PREVIEWS (info, data) -> None: the Data page's preview, in place of
                 the series chart or the sequence slider.
    INSPECT_INPUTS (run, data, i, key) -> InspectInput | None: how Inspect reads
                 its input (a numeric window editor, a text box) from test item
                 ``i``; ``None`` when there is nothing to trace (it said why).
    ANSWERS      (run, sentence, method, key) -> None: the Classify page's answer
                 for a typed sentence (``seqlab.app.tasks.classify_view.Sentence``):
                 class probabilities or tags, and each token's contribution by
                 ``method``. A run is listed on Classify when its task has one.

A task that reads numbers or text (classify, label) may register a view for
its text data as ``"<task>.text"`` (``view_of(..., text=True)`` picks it).
"""

from __future__ import annotations

from typing import Callable

from seqlab.registry import Registry
from seqlab.tasks import TASK_KINDS

PREDICTIONS: Registry[Callable] = Registry("prediction view")
SERVING: Registry[Callable] = Registry("serving view")
OUTCOMES: Registry[Callable] = Registry("inspect outcome view")
OUTPUT_TEXT: Registry[Callable] = Registry("output description")
PLAN_TEXT: Registry[Callable] = Registry("training plan description")
DATA_PREVIEWS: Registry[Callable] = Registry("data preview")
INSPECT_INPUTS: Registry[Callable] = Registry("inspect input reader")
ANSWERS: Registry[Callable] = Registry("classify page answer")


TEXT = ".text"  # the suffix of a view for a task's text data (see ``view_of``)


def view_for(registry: Registry[Callable], *tasks: str) -> Callable[[Callable], Callable]:
    """Decorator: register the function as ``registry``'s view for each of ``tasks``."""

    def register(view: Callable) -> Callable:
        for task in tasks:
            registry.register(task, view)
        return view

    return register


def view_of(registry: Registry[Callable], task: str, fallback: Callable | None, text: bool = False) -> Callable | None:
    """The view registered for ``task``, else ``fallback``.

    ``text``: the data is text (token ids) in a task that also takes numbers
    (classify, label): a view registered as ``"<task>.text"`` comes first.
    """
    for key in ([f"{task}{TEXT}"] if text else []) + [task]:
        if key in registry:
            return registry.get(key)
    return fallback


def is_series(task: str) -> bool:
    """The task's data is one series cut into windows (times on the axes), per ``Task.series``."""
    return task in TASK_KINDS and TASK_KINDS.get(task).series


def in_target_unit(task: str) -> bool:
    """The task's outputs are values in the target's unit (forecasts, regression), not probabilities."""
    return task in TASK_KINDS and TASK_KINDS.get(task).in_target_unit
