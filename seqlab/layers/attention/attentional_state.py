r"""Luong's attentional hidden state: the context and the decoder state through one tanh layer."""

import keras
from keras import ops

from seqlab.layers.embedding.arguments import check_size


@keras.saving.register_keras_serializable(package="seqlab")
class AttentionalState(keras.layers.Layer):
    r"""Luong's attentional hidden state $\tilde{\mathbf{z}}_t$ from the context and the decoder state.

    Equations:
        $$ \tilde{\mathbf{z}}_t = \tanh\left(W_c [\mathbf{c}_t ; \mathbf{z}_t]\right)
           = \tanh\left(V \mathbf{z}_t + D \mathbf{c}_t\right) $$

        A normal layer whose input is $\mathbf{z}_t$ appended with
        $\mathbf{c}_t$: $W_c = [D \; V]$. The decoder's word probabilities are
        then $\mathrm{softmax}(W_s \tilde{\mathbf{z}}_t)$, and with input
        feeding $\tilde{\mathbf{z}}_t$ also enters the next step's input. $D$
        holds the only weights that read the context: if attention is useless
        in training, $D$ can converge to 0. $W_c$ is stored as
        `(d_c + d_q, units)`, context rows first; `D` and `V` are views of it.

    Args:
        units: Positive integer, the width of $\tilde{\mathbf{z}}_t$.

    Call arguments:
        context: `(batch, d_c)` or `(batch, T, d_c)`, the context $\mathbf{c}_t$.
        query: `(batch, d_q)` or `(batch, T, d_q)`, the decoder state $\mathbf{z}_t$.

    Returns:
        $\tilde{\mathbf{z}}_t$, `(batch, units)` or `(batch, T, units)`.

    Example:

    ```python
    z = np.random.rand(2, 4).astype("float32")
    z_bar = np.random.rand(2, 5, 4).astype("float32")
    c, a = LuongAttention(score="dot")(z, z_bar)
    z_tilde = AttentionalState(units=6)(c, z)  # (2, 6)
    ```
    """

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = check_size("units", units)

    def build(self, context_shape, query_shape):
        if context_shape[-1] is None or query_shape[-1] is None or len(context_shape) != len(query_shape):
            raise ValueError(
                "AttentionalState expects context and query of the same rank with known widths, "
                f"(batch, d) or (batch, T, d); received {tuple(context_shape)} and {tuple(query_shape)}."
            )
        self.context_width = context_shape[-1]
        self.W_c = self.add_weight(
            shape=(context_shape[-1] + query_shape[-1], self.units), name="W_c", initializer="glorot_uniform"
        )

    @property
    def D(self):
        r"""$D$, `(units, d_c)`: the context $\mathbf{c}_t$ to $\tilde{\mathbf{z}}_t$."""
        return ops.transpose(self.W_c[: self.context_width])

    @property
    def V(self):
        r"""$V$, `(units, d_q)`: the decoder state $\mathbf{z}_t$ to $\tilde{\mathbf{z}}_t$."""
        return ops.transpose(self.W_c[self.context_width :])

    def call(self, context, query):
        inputs = ops.concatenate([ops.cast(context, self.compute_dtype), ops.cast(query, self.compute_dtype)], -1)
        return ops.tanh(ops.matmul(inputs, self.W_c))  # [c_t ; z_t] (..., d_c + d_q) -> (..., units)

    def get_config(self):
        return {**super().get_config(), "units": self.units}
