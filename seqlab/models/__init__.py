"""Task models assembled from layers, and the architecture registry."""

from seqlab.models.registry import (
    Architecture,
    build_model,
    get_architecture,
    list_architectures,
    resolve_model_options,
)
from seqlab.models.task_model import TaskModel, build_task_model

# Importing the modules registers their architectures.
from seqlab.models import recurrent, mlp, esn  # noqa: E402,F401  isort: skip  (lecture order)

__all__ = [
    "Architecture",
    "TaskModel",
    "build_model",
    "build_task_model",
    "get_architecture",
    "list_architectures",
    "resolve_model_options",
]
