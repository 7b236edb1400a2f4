"""Task models assembled from layers, and the architecture registry."""

from seqlab.models.registry import (
    Architecture,
    build_model,
    get_architecture,
    list_architectures,
    resolve_model_options,
)

# Importing the modules registers their architectures (without importing Keras), in lecture order.
from seqlab.models import (  # noqa: E402,F401  isort: skip
    recurrent, cnn, tcn, mean_embedding, mlp, narx, esn, arx, markov, hmm, neural_lm, seq2seq, transformer, vit,
    transformer_seq2seq, bert, gpt, state_space,
)


__all__ = [
    "Architecture",
    "TaskModel",
    "build_model",
    "build_task_model",
    "get_architecture",
    "list_architectures",
    "resolve_model_options",
]


def __getattr__(name: str):
    # TaskModel is a keras.Model: import it (and TensorFlow) only when it is asked for,
    # so that listing the architectures stays fast.
    if name in ("TaskModel", "build_task_model"):
        from seqlab.models import task_model

        return getattr(task_model, name)
    raise AttributeError(f"module 'seqlab.models' has no attribute {name!r}")
