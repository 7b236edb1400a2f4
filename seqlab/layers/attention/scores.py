r"""The alignment score functions of the notes: dot, general (bilinear) and additive (an MLP).

Pure functions of a sequence of queries `(B, T, d_q)` and the values
`(B, S, d_v)`, returning the scores `(B, T, S)`; the layers own the weights.
"""

from keras import ops


def dot_score(queries, values):
    r"""$\mathbf{z}_t^T \bar{\mathbf{z}}_s$ for every query t and source position s."""
    return ops.matmul(queries, ops.swapaxes(values, -1, -2))  # (B, T, d) @ (B, d, S) -> (B, T, S)


def general_score(queries, values, W_a):
    r"""$\mathbf{z}_t^T W_a \bar{\mathbf{z}}_s$, with $W_a$ of shape `(d_q, d_v)`."""
    return dot_score(ops.matmul(queries, W_a), values)  # (B, T, d_q) @ (d_q, d_v) -> (B, T, d_v)


def additive_score(projected_queries, projected_values, v):
    r"""$v^T \tanh(q_t + k_s)$: the one-hidden-layer MLP score, its two input projections already applied.

    Bahdanau's $W_1 h_{d,i-1}$ and $W_2 h_{e,j}$, or Luong's concat score, whose
    $W_a [\mathbf{z}_t; \bar{\mathbf{z}}_s]$ is the query block of $W_a$ times
    $\mathbf{z}_t$ plus its value block times $\bar{\mathbf{z}}_s$.

    Args:
        projected_queries: `(B, T, units)`.
        projected_values: `(B, S, units)`.
        v: `(units,)`.
    """
    # (B, T, 1, units) + (B, 1, S, units) -> (B, T, S, units): every query with every source position.
    hidden = ops.tanh(ops.expand_dims(projected_queries, 2) + ops.expand_dims(projected_values, 1))
    return ops.tensordot(hidden, v, axes=1)  # (B, T, S, units) . (units,) -> (B, T, S)
