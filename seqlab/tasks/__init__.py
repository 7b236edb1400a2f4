"""Task kinds: the head, loss, metrics and evaluation each kind of dataset needs.

forecast (next H values of a series), regress (a sequence -> real values),
classify (a sequence -> a class), label (a class at every step), language (the next
token at every step), translate (a sequence -> another, by an encoder-decoder).
"""

from seqlab.tasks.metrics import METRICS, Metric, get_metric
from seqlab.tasks.numeric import InputSpec
from seqlab.tasks.task import (
    TASK_KINDS, Evaluation, Task, get_task, list_tasks, mape_left_out, ordered_metrics, register_task, shown_metrics,
)

# Importing the modules registers their tasks.
from seqlab.tasks import classify, forecast, label, language, masked_lm, regress, translate  # noqa: E402,F401  isort: skip

__all__ = [
    "METRICS",
    "TASK_KINDS",
    "Evaluation",
    "InputSpec",
    "Metric",
    "Task",
    "get_metric",
    "get_task",
    "list_tasks",
    "mape_left_out",
    "ordered_metrics",
    "register_task",
    "shown_metrics",
]
