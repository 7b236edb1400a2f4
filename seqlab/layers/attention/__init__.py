"""Attention for encoder-decoders (seeds 000, 002, 004): Bahdanau's additive, Luong's global and local.

Every layer takes one query `(batch, d_q)` (a decoder step) or a sequence of
queries `(batch, T, d_q)` (a teacher-forced target at once), the source states
`(batch, S, d_v)` and an optional `(batch, S)` mask, and returns its weights
beside the context, for the attention map.
"""

from seqlab.layers.attention.attentional_state import AttentionalState
from seqlab.layers.attention.bahdanau import BahdanauAttention
from seqlab.layers.attention.local import LocalAttention
from seqlab.layers.attention.luong import ATTENTION_SCORES, LuongAttention
from seqlab.layers.attention.masks import gaussian_window, local_window, masked_softmax

__all__ = [
    "ATTENTION_SCORES",
    "AttentionalState",
    "BahdanauAttention",
    "LocalAttention",
    "LuongAttention",
    "gaussian_window",
    "local_window",
    "masked_softmax",
]
