r"""Masks and windows of attention: the softmax over the real positions, causal and padding masks, local windows.

Functions of plain tensors (`keras.ops` only), shared by the attention layers
and tested on their own: a padded source position must get weight exactly 0,
whichever layer computes the weights.
"""

from keras import ops

__all__ = ["causal_mask", "combine_masks", "gaussian_window", "local_window", "masked_softmax", "padding_mask"]


def masked_softmax(scores, mask=None):
    r"""The softmax over the last axis, with weight exactly 0 where `mask` is False.

    $$ a_t(s) = \frac{m_s \exp(\mathrm{score}_{t,s})}{\sum_{s'} m_{s'} \exp(\mathrm{score}_{t,s'})} $$

    Args:
        scores: Float tensor `(..., S)`, e.g. `(B, S)` for one query or
            `(B, T, S)` for a sequence of queries.
        mask: Optional booleans, False on padding: the shape of `scores`, or of
            fewer dimensions, then read as `(B, S)` and applied to every query
            (`(B, S)` with `(B, T, S)` scores). None: every position is real.

    Returns:
        Weights shaped like `scores`, summing to 1 over the real positions of
        each row; a row without a real position gets all zeros (not NaN).
    """
    if mask is None:
        return ops.softmax(scores, axis=-1)
    mask = ops.cast(mask, "bool")
    while len(mask.shape) < len(scores.shape):
        mask = ops.expand_dims(mask, -2)  # (B, S) -> (B, 1, S): the same source mask for every query
    # Shift by the max over the real positions (softmax does not change); a row without one shifts by 0.
    largest = ops.max(ops.where(mask, scores, float("-inf")), axis=-1, keepdims=True)
    largest = ops.stop_gradient(ops.where(ops.isfinite(largest), largest, ops.zeros_like(largest)))
    # where() twice: padded scores never reach exp, so no inf and no NaN gradient from them.
    shifted = ops.where(mask, scores - largest, ops.zeros_like(scores))
    exps = ops.where(mask, ops.exp(shifted), ops.zeros_like(scores))
    total = ops.sum(exps, axis=-1, keepdims=True)
    return exps / ops.where(total > 0, total, ops.ones_like(total))


def causal_mask(query_length, key_length=None, start=None):
    r"""True where query $i$ may read key $j$: the keys at its own position and before.

    $$ m_{ij} = [\, j \le i + (T_k - T_q) \,] $$

    By default the $T_q$ queries are the LAST $T_q$ of the $T_k$ positions, so
    the same mask serves a whole sequence ($T_q = T_k$: $j \le i$) and new
    tokens attending over a key/value cache that holds exactly the prefix.

    Args:
        query_length: $T_q$, an integer or a scalar integer tensor.
        key_length: $T_k \ge T_q$; None (default) takes $T_q$.
        start: Optional position of the first query among the keys (an
            integer or scalar tensor), for a fixed-size cache filled up to
            `start + T_q`: then $m_{ij} = [j \le i + \mathrm{start}]$. None
            (default) means $T_k - T_q$.

    Returns:
        Booleans `(T_q, T_k)`.
    """
    key_length = query_length if key_length is None else key_length
    start = key_length - query_length if start is None else start
    i = ops.expand_dims(ops.arange(query_length), 1)  # (T_q, 1)
    j = ops.expand_dims(ops.arange(key_length), 0)  # (1, T_k)
    return j <= i + start


def padding_mask(mask):
    r"""A `(B, T_k)` mask of real key positions as `(B, 1, T_k)`: the same keys for every query.

    $$ m_{b,i,j} = \mathrm{real}_{b,j} $$

    Args:
        mask: Booleans (or 0/1) `(B, T_k)`, False on padding.

    Returns:
        Booleans `(B, 1, T_k)`, to combine with `causal_mask` or pass as an attention mask.
    """
    return ops.expand_dims(ops.cast(mask, "bool"), -2)


def combine_masks(*masks):
    r"""The logical AND of the given masks, broadcast together (NumPy rules); None ones are skipped.

    $$ m = m^{(1)} \wedge m^{(2)} \wedge \dots $$

    Args:
        *masks: Boolean tensors or None, e.g. `padding_mask(real)` `(B, 1, T)`
            and `causal_mask(T)` `(T, T)`.

    Returns:
        Booleans of the broadcast shape (`(B, T, T)` in the example), or None
        when every mask is None.
    """
    combined = None
    for mask in masks:
        if mask is None:
            continue
        mask = ops.cast(mask, "bool")
        combined = mask if combined is None else ops.logical_and(combined, mask)
    return combined


def _distance(p_t, length):
    """`s - p_t` for every source position s = 0 .. length-1: `(..., length)` for `p_t` of shape `(...)`."""
    s = ops.cast(ops.arange(length), p_t.dtype)
    return s - ops.expand_dims(p_t, -1)


def local_window(p_t, length, half_width):
    r"""Local attention's window: True at the source positions $s$ with $|s - p_t| \le D$.

    $$ p_t - D \le s \le p_t + D $$

    Args:
        p_t: Float tensor `(...)` of aligned positions (0-based, may be fractional).
        length: Integer $S$, the number of source positions.
        half_width: The window's half-width $D$.

    Returns:
        Booleans `(..., S)`.
    """
    return ops.abs(_distance(p_t, length)) <= half_width


def gaussian_window(p_t, length, sigma):
    r"""The Gaussian that local-p attention multiplies its alignment by, centred on $p_t$.

    $$ \exp\left(-\frac{(s - p_t)^2}{2\sigma^2}\right) $$

    Args:
        p_t: Float tensor `(...)` of aligned positions.
        length: Integer $S$, the number of source positions.
        sigma: The Gaussian's width $\sigma$ (Luong et al.: $D/2$).

    Returns:
        Floats `(..., S)` in (0, 1], 1 at $s = p_t$.
    """
    distance = _distance(p_t, length)
    return ops.exp(-ops.square(distance) / (2.0 * sigma**2))
