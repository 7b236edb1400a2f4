r"""Luong's local attention: align within a window of half-width D around a position p_t, Gaussian-weighted."""

import numbers

import keras
from keras import ops

from seqlab.layers.attention.luong import LuongAttention, check_units
from seqlab.layers.attention.masks import gaussian_window, local_window, masked_softmax


@keras.saving.register_keras_serializable(package="seqlab")
class LocalAttention(LuongAttention):
    r"""Local attention: only the source positions within $D$ of an aligned position $p_t$ are scored.

    Equations:
        $$ p_t = t \;\; \text{(local-m)}, \qquad
           p_t = S_b \, \mathrm{sig}\left(v_p^T \tanh(W_p \mathbf{z}_t)\right) \;\; \text{(local-p)} $$

        $$ a_t(s) = \mathrm{align}(\mathbf{z}_t, \bar{\mathbf{z}}_s)
           \exp\left(-\frac{(s - p_t)^2}{2\sigma^2}\right), \qquad
           \sigma = \frac{D}{2}, \quad p_t - D \le s \le p_t + D $$

        $$ \mathbf{c}_t = \sum_s a_t(s) \, \bar{\mathbf{z}}_s $$

        $\mathrm{align}$ is the softmax of the global layer's score, taken over
        the real source positions inside the window only; $a_t(s) = 0$ outside
        the window and on padding. Local-m (monotonic) takes $p_t$ from the
        caller (the decoder step $t$); local-p predicts it from $\mathbf{z}_t$,
        with $S_b$ the real (unpadded) length of source sentence $b$, so
        $p_t \in [0, S_b]$. Positions count from 0. Both apply the Gaussian
        (Luong et al. use it for local-p; local-m alike here, so the two differ
        in $p_t$ only). The weights are not renormalised after the Gaussian:
        they sum to at most 1. (The notes print the exponent without its
        minus sign; the Gaussian needs it.) $W_p$ is stored as
        `(d_q, units)` and $v_p$ as `(units,)`.

    Args:
        score: `"dot"` (default), `"general"` or `"concat"`, as `LuongAttention`.
        half_width: Positive integer $D$, the window's half-width. Default 2.
        predictive: `False` (default) for local-m, `True` for local-p.
        units: Positive integer, the hidden width of the `concat` score and of
            $W_p$; None (default) takes $d_q$. Must be None when neither is used.

    Call arguments:
        query: `(batch, d_q)`, the decoder state $\mathbf{z}_t$, or a sequence
            `(batch, T, d_q)`.
        values: `(batch, S, d_v)`, the source states $\bar{\mathbf{z}}_s$.
        mask: Optional `(batch, S)` booleans, False on padded source positions.
        position: Local-m's $p_t$: a scalar or `(batch,)` for one query,
            `(T,)` or `(batch, T)` for a sequence (None: $0, \dots, T-1$).
            Must be None for local-p, which predicts $p_t$.

    Returns:
        `(context, weights, p_t)`: `(batch, d_v)`, `(batch, S)` and `(batch,)`
        for one query, or `(batch, T, d_v)`, `(batch, T, S)` and `(batch, T)`.

    Example:

    ```python
    attention = LocalAttention(score="dot", half_width=2, predictive=True)
    z_bar = np.random.rand(2, 7, 4).astype("float32")  # source states, S = 7
    z = np.random.rand(2, 4).astype("float32")  # one decoder step
    c, a, p = attention(z, z_bar, mask=np.array([[True] * 7, [True] * 4 + [False] * 3]))  # p[1] in [0, 4]
    c, a, p = LocalAttention(half_width=1)(z, z_bar, position=3)  # local-m: a is 0 outside s = 2, 3, 4
    ```
    """

    def __init__(self, score="dot", half_width=2, predictive=False, units=None, **kwargs):
        super().__init__(score=score, **kwargs)
        if isinstance(half_width, bool) or not isinstance(half_width, numbers.Integral) or half_width < 1:
            raise ValueError(
                f"Argument `half_width` (the window's D) must be an integer >= 1. Received: half_width={half_width!r}"
            )
        if not isinstance(predictive, bool):
            raise ValueError(
                f"Argument `predictive` must be False (local-m) or True (local-p). Received: predictive={predictive!r}"
            )
        self.half_width = int(half_width)
        self.predictive = predictive
        self.units = check_units(
            units, used=score == "concat" or predictive, users="the 'concat' score and local-p's W_p"
        )

    def build(self, query_shape, values_shape):
        super().build(query_shape, values_shape)
        if self.predictive:
            units = self.units or query_shape[-1]
            self.W_p = self.add_weight(shape=(query_shape[-1], units), name="W_p", initializer="glorot_uniform")
            self.v_p = self.add_weight(shape=(units,), name="v_p", initializer="glorot_uniform")

    def aligned_position(self, queries, mask, length, position, single):
        """$p_t$, `(B, T)`: predicted (local-p) or the caller's `position` (local-m)."""
        if self.predictive:
            if position is not None:
                raise ValueError(
                    "LocalAttention(predictive=True) predicts p_t from the query; do not pass `position` "
                    "(or use predictive=False, local-m, to give p_t yourself)."
                )
            if mask is None:
                real_length = ops.cast(length, queries.dtype)  # S_b = S for every row
            else:
                real_length = ops.sum(ops.cast(mask, queries.dtype), axis=-1, keepdims=True)  # S_b, (B, 1)
            hidden = ops.tanh(ops.matmul(queries, self.W_p))  # (B, T, d_q) -> (B, T, units)
            return real_length * ops.sigmoid(ops.tensordot(hidden, self.v_p, axes=1))  # (B, T)
        if position is None:
            if single:
                raise ValueError(
                    "LocalAttention(predictive=False) is local-m: pass `position`, the aligned source "
                    "position p_t (the decoder step t), for a single query."
                )
            position = ops.arange(queries.shape[1] if queries.shape[1] is not None else ops.shape(queries)[1])
        position = ops.cast(ops.convert_to_tensor(position), queries.dtype)
        if single:
            position = ops.reshape(position, (-1, 1))  # scalar -> (1, 1); (B,) -> (B, 1)
        elif len(position.shape) == 1:
            position = ops.expand_dims(position, 0)  # (T,) -> (1, T): the same steps for every row
        return position + ops.zeros_like(queries[..., 0])  # broadcast to (B, T)

    def call(self, query, values, mask=None, position=None):
        queries, single = self.as_sequence(ops.cast(query, self.compute_dtype))
        values = ops.cast(values, self.compute_dtype)
        length = values.shape[1] if values.shape[1] is not None else ops.shape(values)[1]  # S
        p_t = self.aligned_position(queries, mask, length, position, single)  # (B, T)
        window = local_window(p_t, length, self.half_width)  # (B, T, S)
        if mask is not None:
            window = ops.logical_and(window, ops.expand_dims(ops.cast(mask, "bool"), 1))  # and not padding
        align = masked_softmax(self.score(queries, values), window)  # (B, T, S), 0 outside the window
        weights = align * gaussian_window(p_t, length, self.half_width / 2.0)
        context, weights = self.context(weights, values, single)
        return context, weights, (p_t[:, 0] if single else p_t)

    def get_config(self):
        return {**super().get_config(), "half_width": self.half_width, "predictive": self.predictive}
