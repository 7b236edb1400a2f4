r"""Scaled dot-product attention (seeds 001, 002): a'_{ij} = q_i^T k_j / sqrt(d_k), softmax, sum of values."""

from keras import ops

from seqlab.layers.attention.masks import masked_softmax

__all__ = ["scaled_dot_product_attention", "scaled_scores"]


def scaled_scores(q, k):
    r"""The scaled scores of every query against every key, before masking and softmax.

    $$ a'_{ij} = \frac{\mathbf{q}_i^T \mathbf{k}_j}{\sqrt{d_k}} $$

    Dividing by $\sqrt{d_k}$ keeps the scores' variance near 1 whatever the
    width, so the softmax does not saturate.

    Args:
        q: Queries `(..., T_q, d_k)`.
        k: Keys `(..., T_k, d_k)`.

    Returns:
        Scores `(..., T_q, T_k)`.
    """
    d_k = q.shape[-1]
    return ops.matmul(q, ops.swapaxes(k, -1, -2)) / ops.sqrt(ops.cast(d_k, q.dtype))


def broadcast_rank(mask, rank):
    """`mask` with leading axes of size 1 up to `rank` (NumPy's broadcasting, made explicit)."""
    while len(mask.shape) < rank:
        mask = ops.expand_dims(mask, 0)
    return mask


def scaled_dot_product_attention(q, k, v, mask=None):
    r"""Attention of every query over the keys: softmax of the scaled scores, then the weighted sum of values.

    $$ a_{ij} = \frac{m_{ij} \exp(a'_{ij})}{\sum_{j'} m_{ij'} \exp(a'_{ij'})}, \qquad
       \mathbf{y}_i = \sum_j a_{ij} \mathbf{v}_j $$

    Args:
        q: Queries `(..., T_q, d_k)`.
        k: Keys `(..., T_k, d_k)`.
        v: Values `(..., T_k, d_v)`.
        mask: Optional booleans broadcastable (NumPy rules, aligned on the
            right) to `(..., T_q, T_k)`, True where query $i$ may read key
            $j$: e.g. `causal_mask(T)` or `padding_mask(real)`.

    Returns:
        `(y, a)`: outputs `(..., T_q, d_v)` and weights `(..., T_q, T_k)`;
        masked weights are exactly 0 (a query with no key left gets all zeros).
    """
    scores = scaled_scores(q, k)
    if mask is not None:
        mask = broadcast_rank(ops.cast(mask, "bool"), len(scores.shape))
    a = masked_softmax(scores, mask)
    return ops.matmul(a, v), a
