"""The language task's head: next-token probabilities at every step, in the layer the decoders read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.data.sequence_data import SequenceData
from seqlab.tasks.text_inputs import tokenizer_of

if TYPE_CHECKING:
    import keras

HEAD_LAYER = "next_token"


def next_token_head(data: SequenceData, features: keras.KerasTensor) -> keras.KerasTensor:
    """Next-token probabilities ``(B, T, V)`` at every step."""
    import keras

    return keras.layers.Dense(tokenizer_of(data).vocab_size, activation="softmax", name=HEAD_LAYER)(features)
