"""The windowed MLP: a feed-forward net on the whole flattened window (NARX / TDNN style).

Keras is imported inside the builder, so registering the architecture does not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import check_dropout, check_positive_int
from seqlab.data.sequence_data import SequenceData
from seqlab.models.registry import Architecture, register_architecture

if TYPE_CHECKING:
    import keras


def build_mlp(data: SequenceData, units: int, layers: int, dropout: float) -> keras.Model:
    import keras

    from seqlab.models.task_model import build_task_model

    units = check_positive_int("units", units)
    layers = check_positive_int("layers", layers)
    dropout = check_dropout(dropout)

    def body(x, sequences):
        x = keras.layers.Flatten(name="flatten_window")(x)  # (B, T, F) -> (B, T*F)
        for i in range(layers):
            x = keras.layers.Dense(units, activation="relu", name=f"hidden_{i + 1}")(x)
            if dropout:
                x = keras.layers.Dropout(dropout)(x)
        return x

    return build_task_model(data, body, name="mlp")


register_architecture(
    Architecture(
        name="mlp",
        title="Windowed MLP (NARX-style)",
        tasks=("forecast", "regress", "classify"),  # one output per window: no per-step labels
        family="NARX / TDNN",
        teaches="the window flattened into one feed-forward net",
        description="A feed-forward net on the flattened window y_{t-1..t-T}, x_{t-1..t-T}.",
        build=build_mlp,
        defaults={"units": 128, "layers": 2, "dropout": 0.0},
    )
)
