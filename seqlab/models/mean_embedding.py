"""The mean-of-embeddings baseline: a sentence is the average of its token vectors, word order ignored.

The mean runs over the real tokens only (``seqlab.layers.MaskedGlobalAveragePooling1D``),
then an optional hidden ``Dense`` (``units`` > 0) and the task's head. On
numbers (a digit's rows) it averages the scaled rows.

Keras is imported inside the builder, so registering the architecture does not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import Range, check_dropout, check_int
from seqlab.data.sequence_data import SequenceData
from seqlab.models.registry import Architecture, register_architecture

if TYPE_CHECKING:
    import keras


def build_mean_embedding(data: SequenceData, units: int, dropout: float) -> keras.Model:
    import keras

    from seqlab.layers import MaskedGlobalAveragePooling1D
    from seqlab.models.task_model import build_task_model

    units = check_int("units", units, 0)
    dropout = check_dropout(dropout)

    def body(x, sequences):
        h = MaskedGlobalAveragePooling1D(name="mean_embedding")(x)  # (B, d)
        if units:
            h = keras.layers.Dense(units, activation="relu", name="hidden")(h)
        return keras.layers.Dropout(dropout, name="dropout")(h) if dropout else h

    return build_task_model(data, body, name="mean_embedding")


register_architecture(
    Architecture(
        name="mean_embedding",
        title="Mean of embeddings",
        tasks=("classify",),  # one vector per sequence: no tag per step
        family="Bag of words",
        teaches="a text as the mean of its token embeddings: the baseline that ignores word order",
        description=(
            "The baseline that ignores word order: the mean of the token embeddings over the real tokens, "
            "an optional hidden ReLU layer (units > 0), then the classes."
        ),
        build=build_mean_embedding,
        defaults={"units": 0, "dropout": 0.0},
        ranges={"units": Range(0, 1024)},
    )
)
