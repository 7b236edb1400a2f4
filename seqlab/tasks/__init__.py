"""Task kinds: the head, loss, metrics and evaluation each kind of dataset needs, and what its runs do after.

forecast (next H values of a series), regress (a sequence -> real values),
classify (a sequence -> a class), label (a class at every step), language (the next
token at every step), translate (a sequence -> another, by an encoder-decoder),
masked_lm (BERT's pre-training). Each kind is a package ``seqlab.tasks.<name>``
(its ``Task`` in ``task``, beside its serving endpoints and its uses after
training); ``get_task`` and ``list_tasks`` import them on first use. The pieces
several kinds share sit here: ``task`` (the plug-in and its registry),
``metrics``, ``loss_scale``, ``numeric``, ``text_inputs``, ``text_serving``,
``class_scores``.
"""

from seqlab.tasks.metrics import METRICS, Metric
from seqlab.tasks.numeric import InputSpec
from seqlab.tasks.task import (
    TASK_KINDS, USES, Evaluation, Task, TextEndpoint, check_model_io, get_metric, get_task, list_tasks, mape_left_out,
    ordered_metrics, register_task, shown_metrics, task_can, task_for,
)

__all__ = [
    "METRICS",
    "TASK_KINDS",
    "USES",
    "Evaluation",
    "InputSpec",
    "Metric",
    "Task",
    "TextEndpoint",
    "check_model_io",
    "get_metric",
    "get_task",
    "list_tasks",
    "mape_left_out",
    "ordered_metrics",
    "register_task",
    "shown_metrics",
    "task_can",
    "task_for",
]
