"""Task models assembled from layers, and the architecture registry."""

from seqlab.models.registry import (
    Architecture,
    build_model,
    get_architecture,
    list_architectures,
    resolve_model_options,
)

# Importing the modules registers their architectures.
from seqlab.models import forecast_architectures  # noqa: E402,F401  isort: skip

__all__ = [
    "Architecture",
    "build_model",
    "get_architecture",
    "list_architectures",
    "resolve_model_options",
]
