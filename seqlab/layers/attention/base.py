"""What every attention layer shares: one query or a sequence of queries, scores -> weights -> context."""

import keras
from keras import ops

from seqlab.layers.attention.masks import masked_softmax


class QueryAttention(keras.layers.Layer):
    """Base of the attention layers: subclasses give `score(queries, values)` of shape `(B, T, S)`.

    A decoder runs one step at a time (a query `(B, d_q)`) or reads a whole
    teacher-forced target at once (queries `(B, T, d_q)`); both go through the
    same `(B, T, ...)` code, the single step as T = 1.
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True  # reads the source mask; its outputs carry none (see compute_mask)

    def compute_mask(self, inputs, mask=None):
        return None  # the mask is over source positions; context and weights are per query

    def build(self, query_shape, values_shape):
        name = type(self).__name__
        if len(query_shape) not in (2, 3) or query_shape[-1] is None:
            raise ValueError(
                f"{name} expects a query of shape (batch, d_q) or (batch, T, d_q) with known d_q; "
                f"received query shape {tuple(query_shape)}."
            )
        if len(values_shape) != 3 or values_shape[-1] is None:
            raise ValueError(
                f"{name} expects values (the encoder states) of shape (batch, S, d_v) with known d_v; "
                f"received values shape {tuple(values_shape)}."
            )

    @staticmethod
    def as_sequence(query):
        """`(queries, single)`: a `(B, d_q)` query becomes `(B, 1, d_q)` and `single` is True."""
        single = len(query.shape) == 2
        return (ops.expand_dims(query, 1) if single else query), single

    @staticmethod
    def context(weights, values, single):
        """`c = sum_s a(s) values_s` for every query; drops the T axis again for a single query."""
        context = ops.matmul(weights, values)  # (B, T, S) @ (B, S, d_v) -> (B, T, d_v)
        return (context[:, 0], weights[:, 0]) if single else (context, weights)

    def call(self, query, values, mask=None):
        queries, single = self.as_sequence(ops.cast(query, self.compute_dtype))
        values = ops.cast(values, self.compute_dtype)
        weights = masked_softmax(self.score(queries, values), mask)  # (B, T, S)
        return self.context(weights, values, single)
