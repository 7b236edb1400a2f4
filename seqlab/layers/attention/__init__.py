"""Attention (seeds 000, 001, 002, 004): Bahdanau's additive, Luong's global and local, self- and multi-head attention.

Every layer takes one query `(batch, d_q)` (a decoder step) or a sequence of
queries `(batch, T, d_q)` (a teacher-forced target at once), the source states
`(batch, S, d_v)` and an optional `(batch, S)` mask, and returns its weights
beside the context, for the attention map. The Transformer's pieces
(`scaled_dot_product_attention`, `MultiHeadAttention`, the causal and padding
masks) read sequences of queries against sequences of keys and values.
"""

from seqlab.layers.attention.attentional_state import AttentionalState
from seqlab.layers.attention.bahdanau import BahdanauAttention
from seqlab.layers.attention.local import LocalAttention
from seqlab.layers.attention.luong import ATTENTION_SCORES, LuongAttention
from seqlab.layers.attention.masks import (
    causal_mask,
    combine_masks,
    gaussian_window,
    local_window,
    masked_softmax,
    padding_mask,
)
from seqlab.layers.attention.multi_head import MultiHeadAttention
from seqlab.layers.attention.scaled_dot_product import scaled_dot_product_attention, scaled_scores
from seqlab.layers.attention.self_attention import SelfAttention

__all__ = [
    "ATTENTION_SCORES",
    "AttentionalState",
    "BahdanauAttention",
    "LocalAttention",
    "LuongAttention",
    "MultiHeadAttention",
    "SelfAttention",
    "causal_mask",
    "combine_masks",
    "gaussian_window",
    "local_window",
    "masked_softmax",
    "padding_mask",
    "scaled_dot_product_attention",
    "scaled_scores",
]
