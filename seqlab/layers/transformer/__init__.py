"""The Transformer's layers (seeds 000, 002): positions, the feed-forward network, encoder and decoder blocks.

Attention itself (`MultiHeadAttention`, the masks) lives in `seqlab.layers.attention`.
"""

from seqlab.layers.transformer.decoder_block import TransformerDecoderBlock
from seqlab.layers.transformer.encoder_block import TransformerEncoderBlock
from seqlab.layers.transformer.feed_forward import PositionwiseFeedForward
from seqlab.layers.transformer.positional import (
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    sinusoidal_encoding,
)

__all__ = [
    "LearnedPositionalEmbedding",
    "PositionwiseFeedForward",
    "SinusoidalPositionalEncoding",
    "TransformerDecoderBlock",
    "TransformerEncoderBlock",
    "sinusoidal_encoding",
]
