"""What an encoder-decoder's builders and its steps share: the names of its two parts and the source's mask."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import keras

ENCODER, DECODER = "encoder", "decoder"  # the nested encoder model and the decoder layer, by name


def real_steps(source) -> keras.KerasTensor:
    """``(B, S)``: True on the source's real steps (token ids other than padding; every step of numbers)."""
    from keras import ops

    from seqlab.text import PAD_ID

    return ops.not_equal(source, PAD_ID) if len(source.shape) == 2 else ops.ones_like(source[..., 0], dtype="bool")
