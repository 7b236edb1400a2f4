r"""The attention probe: every head's weights $a_{ij}$ of a Transformer layer, and the scores before the softmax.

A traced attention layer (``seqlab.layers.transformer.TransformerEncoderBlock``,
``TransformerDecoderBlock``, ``seqlab.layers.attention.MultiHeadAttention``,
``SelfAttention``, or Keras's own ``MultiHeadAttention``) runs in the traced
copy of the graph as the layer itself, re-called with
``return_attention_scores=True`` on its actual inputs (mask included), so the
weights are the layer's own: one ``(h, T_q, T_k)`` array per attention, with
axes ``("head", "query", "key")``; row $i$ is the distribution query $i$ read
the keys with (it sums to 1 over the keys it may read; a masked key gets 0).

Beside them the probe keeps the scaled scores before the softmax, the notes'
walk-through (seeds 001, 002):

$$ q_i = W^Q x_i, \quad k_j = W^K x_j, \quad a'_{ij} = \frac{q_i^T k_j}{\sqrt{d_k}}, \quad
   a_{ij} = \mathrm{softmax}_j(a'_{ij}) $$

computed from the layer's own $W^Q$, $W^K$ on the same inputs, with
$a'_{ij} = -\infty$ where the mask forbids query $i$ to read key $j$ (padding,
or a later token under the decoder's causal mask), so that
$\mathrm{softmax}_j$ of them is the recorded $a_{ij}$.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import keras
import numpy as np
from keras import ops
# Private Keras, kept on purpose (pinned by tests/test_private_keras.py): `get_keras_mask` reads the mask
# Keras 3 carries on a tensor, which the scores must leave out as the layer does; no public reader exists,
# and the public route, the `mask` argument that Layer.__call__ fills, is not filled for a call with
# several tensors (query, value and key; a decoder block's input and context).
from keras.src import backend  # get_keras_mask

from seqlab.inspect.trace import LayerResult, _Tracer, register_probe
from seqlab.layers.attention import MultiHeadAttention, SelfAttention, causal_mask
from seqlab.layers.docs import equations as doc_equations, own_convention
from seqlab.layers.transformer import TransformerDecoderBlock, TransformerEncoderBlock

ATTENTION_AXES = ("head", "query", "key")  # a[h, i, j]: head h, query token i reading key token j


@dataclass(frozen=True, kw_only=True)
class AttentionTrace(LayerResult):
    """One attention layer over one sequence (a ``LayerResult`` of kind ``MultiHeadAttention``, a block's class...).

    Attributes:
        arrays: ``"self"`` ``(h, T, T)``, the self-attention weights $a_{ij}$ of every head
            (one head for the notes' simple ``SelfAttention``); a decoder block with
            cross-attention also ``"cross"`` ``(h, T, S)`` over its context (a bare multi-head attention's
            weights are ``"self"`` whatever it reads). Axes ``("head", "query", "key")``.
        scores: ``"self"`` ``(h, T, T)``, the scaled scores $a'_{ij}$ before the softmax, ``-inf``
            where masked (``None`` when the layer's projections cannot be read).
        query_labels: one label per query token (the traced tokens).
        key_labels: attention name -> one label per key token (``"cross"``: the context's positions).
    """

    scores: dict[str, np.ndarray] = field(default_factory=dict)
    query_labels: list = field(default_factory=list)
    key_labels: dict[str, list] = field(default_factory=dict)

    @property
    def heads(self) -> int:
        return int(self.arrays["self"].shape[0])

    @property
    def attentions(self) -> list[str]:
        """``["self"]`` or ``["self", "cross"]``."""
        return list(self.arrays)

    def average(self, attention: str = "self") -> np.ndarray:
        """The weights averaged over the heads, ``(T_q, T_k)`` (each row still sums to 1)."""
        return self.arrays[attention].mean(axis=0)


# ---------------------------------------------------------------- scores before the softmax


def _numpy(x) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def projections(attention, query, key) -> tuple[np.ndarray, np.ndarray]:
    """$q_i = W^Q x_i + b^Q$ and $k_j = W^K x_j + b^K$ of a multi-head attention, each ``(B, h, T, d_k)``.

    Read from the layer's weights in Keras's layout (kernels ``(d, h, d_k)``, biases
    ``(h, d_k)``, in the order query, key, value, output), which seqlab's
    ``MultiHeadAttention`` shares with ``keras.layers.MultiHeadAttention``.
    """
    weights = attention.get_weights()
    if len(weights) == 8:  # with biases: W^Q, b^Q, W^K, b^K, W^V, b^V, W^O, b^O
        w_q, b_q, w_k, b_k = weights[:4]
    elif len(weights) == 4:  # without: W^Q, W^K, W^V, W^O
        w_q, w_k = weights[:2]
        b_q = b_k = np.zeros(w_q.shape[1:], dtype=w_q.dtype)
    else:
        raise ValueError(
            f"{attention.name} has {len(weights)} weight arrays; a multi-head attention has 8 (with biases) or 4: "
            "build it (call it once) before reading its projections."
        )
    q = np.einsum("btd,dhk->bhtk", _numpy(query), w_q) + b_q[:, None, :]
    k = np.einsum("btd,dhk->bhtk", _numpy(key), w_k) + b_k[:, None, :]
    return q, k


def scaled_scores(attention, query, key=None, mask=None) -> np.ndarray:
    r"""The scores before the softmax, ``(B, h, T_q, T_k)``, ``-inf`` where ``mask`` is False.

    A multi-head attention: $a'_{ij} = q_i^T k_j / \sqrt{d_k}$ per head, from its own $W^Q$, $W^K$.
    The notes' simple ``SelfAttention``: $z_i^T z_j$ (one head; it has no projections).

    Args:
        attention: a ``MultiHeadAttention`` (seqlab's or Keras's) or a ``SelfAttention``.
        query: ``(B, T_q, d)``, what the queries are computed from.
        key: ``(B, T_k, d)``, what the keys are computed from (default: ``query``: self-attention).
        mask: booleans broadcastable to ``(B, T_q, T_k)`` (or ``(B, h, T_q, T_k)``), True where
            query $i$ may read key $j$; ``None``: every key.
    """
    key = query if key is None else key
    if isinstance(attention, SelfAttention):
        z_q, z_k = _numpy(query), _numpy(key)
        scores = np.einsum("bid,bjd->bij", z_q, z_k)[:, None]  # (B, 1, T_q, T_k)
    else:
        q, k = projections(attention, query, key)
        scores = np.einsum("bhik,bhjk->bhij", q, k) / np.sqrt(q.shape[-1])
    if mask is None:
        return scores
    mask = np.asarray(mask, dtype=bool)
    mask = mask[:, None] if mask.ndim == 3 else mask  # (B, T_q, T_k): the same for every head
    return np.where(mask, scores, -np.inf)


def mask_future(scores: np.ndarray) -> np.ndarray:
    """Scores ``(..., T_q, T_k)`` with the decoder's causal mask: ``-inf`` where key j comes after query i."""
    scores = np.asarray(scores)
    return np.where(_causal(*scores.shape[-2:])[0], scores, -np.inf)  # the layers' own causal_mask


# ---------------------------------------------------------------- masks, as the layers apply them


def _key_padding(mask) -> np.ndarray | None:
    """``(B, T_k)`` booleans (False on padding) as ``(B, 1, T_k)``, or ``None``."""
    return None if mask is None else _numpy(mask).astype(bool)[:, None, :]


def _combine(*masks) -> np.ndarray | None:
    present = [np.asarray(m, dtype=bool) for m in masks if m is not None]
    if not present:
        return None
    combined = present[0]
    for m in present[1:]:
        combined = np.logical_and(combined, m)
    return combined


def _given(attention_mask) -> np.ndarray | None:
    """An ``attention_mask`` argument as ``(B or 1, T_q, T_k)`` booleans (one per head: the first's)."""
    if attention_mask is None:
        return None
    mask = _numpy(attention_mask).astype(bool)
    return mask[None] if mask.ndim == 2 else mask[:, 0] if mask.ndim == 4 else mask


def _causal(length: int, key_length: int | None = None) -> np.ndarray:
    return _numpy(causal_mask(length, key_length)).astype(bool)[None]  # (1, T_q, T_k)


def _full(mask: np.ndarray | None, batch: int, length_q: int, length_k: int) -> np.ndarray:
    """A mask broadcast to ``(B, T_q, T_k)`` (all True when there is none)."""
    if mask is None:
        return np.ones((batch, length_q, length_k), dtype=bool)
    return np.broadcast_to(mask, (batch, length_q, length_k))


# ---------------------------------------------------------------- labels


def key_labels(length: int, time_labels: Sequence) -> list:
    """One label per position of a sequence of ``length``: the trace's labels where they match.

    The trace's labels follow the layers that add or regroup positions (a
    ``[CLS]`` token, image patches: ``seqlab.inspect.positions``); a sequence
    of another length (the context of a cross-attention) is numbered ``1 .. length``.
    """
    labels = list(time_labels)
    return labels if len(labels) == length else list(range(1, length + 1))


# ---------------------------------------------------------------- probes


def _as_heads(weights) -> np.ndarray:
    """``(B, h, T_q, T_k)`` weights; the notes' single-head ``(B, T_q, T_k)`` gets a head axis."""
    weights = _numpy(weights)
    return weights[:, None] if weights.ndim == 3 else weights


def block_equations(layer) -> list[str]:
    """The layer's equations; a Transformer block documents post-norm and pre-norm: its own ``norm``'s are kept."""
    blocks = doc_equations(layer)
    norm = getattr(layer, "norm", None)
    if norm not in ("post", "pre"):
        return blocks
    other = "pre" if norm == "post" else "post"
    return own_convention(blocks, other=r"\text{" + other + "-norm:}")  # its own tag stays: which it is


def _record(tracer: _Tracer, layer, weights: dict, scores: dict, kind: str | None = None) -> None:
    blocks = block_equations(layer)
    time_labels = list(tracer.time_labels)  # as they are where this layer runs (positions.py relabels)

    def result(sample: int) -> AttentionTrace:
        arrays = {name: w[sample] for name, w in weights.items()}
        queries = key_labels(arrays["self"].shape[1], time_labels)
        keys = {name: queries if name == "self" else key_labels(a.shape[2], []) for name, a in arrays.items()}
        return AttentionTrace(
            name=layer.name, kind=kind or type(layer).__name__, arrays=arrays,
            axes={name: ATTENTION_AXES for name in arrays}, equations=blocks,
            time_labels=time_labels, query_labels=queries, key_labels=keys,
            scores={name: s[sample] for name, s in scores.items()},
        )  # fmt: skip

    tracer.record(result)


@register_probe(MultiHeadAttention)
@register_probe(keras.layers.MultiHeadAttention)
def multi_head_probe(tracer: _Tracer, layer) -> Callable:
    """Run the attention with ``return_attention_scores=True``; record its weights and its scaled scores."""

    def call(query, value, key=None, attention_mask=None, return_attention_scores=False, training=None,
             use_causal_mask=False, **kwargs):
        output, weights = layer(query, value, key=key, attention_mask=attention_mask, return_attention_scores=True,
                                training=False, use_causal_mask=use_causal_mask, **kwargs)
        keys = value if key is None else key
        batch, length_q, length_k = query.shape[0], query.shape[1], keys.shape[1]
        mask = _combine(
            _given(attention_mask),
            _key_padding(backend.get_keras_mask(value)),  # private: see the import
            None if key is None else _key_padding(backend.get_keras_mask(key)),  # private: see the import
            _causal(length_q, length_k) if use_causal_mask else None,
        )
        scores = scaled_scores(layer, query, keys, _full(mask, batch, length_q, length_k))
        _record(tracer, layer, {"self": _as_heads(weights)}, {"self": scores})
        return (output, weights) if return_attention_scores else output

    return call


@register_probe(SelfAttention)
def self_attention_probe(tracer: _Tracer, layer) -> Callable:
    """The notes' simple self-attention: its softmax weights over the sequence, one head."""

    def call(z, mask=None, return_attention_scores=False, **kwargs):
        mask = backend.get_keras_mask(z) if mask is None else mask  # private: see the import
        output, weights = layer(z, mask=mask, return_attention_scores=True, **kwargs)
        padding = _full(_key_padding(mask), z.shape[0], z.shape[1], z.shape[1])
        _record(tracer, layer, {"self": _as_heads(weights)}, {"self": scaled_scores(layer, z, mask=padding)})
        return (output, weights) if return_attention_scores else output

    return call


@register_probe(TransformerEncoderBlock)
@register_probe(TransformerDecoderBlock)
def block_probe(tracer: _Tracer, layer) -> Callable:
    """An encoder or decoder block: its self-attention heads (causal in a decoder) and its cross-attention."""
    decoder = isinstance(layer, TransformerDecoderBlock)

    def call(x, *args, mask=None, return_attention_scores=False, training=None, **kwargs):
        mask = backend.get_keras_mask(x) if mask is None else mask  # private: see the import
        output, weights = layer(x, *args, mask=mask, return_attention_scores=True, training=False, **kwargs)
        weights = dict(weights) if isinstance(weights, dict) else {"self": weights}
        length = x.shape[1]
        allowed = _combine(_key_padding(mask), _causal(length) if decoder else None)
        attention, inputs = block_self_attention(layer, x)
        scores = {"self": scaled_scores(attention, inputs, mask=_full(allowed, x.shape[0], length, length))}
        _record(tracer, layer, {name: _as_heads(w) for name, w in weights.items()}, scores)
        return (output, weights) if return_attention_scores else output

    return call


def block_self_attention(block, x) -> tuple:
    """A block's self-attention layer and what it reads: ``x`` (post-norm) or ``LN(x)`` (pre-norm)."""
    attention = block.self_attention if isinstance(block, TransformerDecoderBlock) else block.attention
    return attention, block.norm_1(x) if block.norm == "pre" else x
