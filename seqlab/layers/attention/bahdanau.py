r"""Bahdanau's additive attention: the decoder state before the step scores every encoder state."""

import keras
from keras import ops

from seqlab.layers.attention.base import QueryAttention
from seqlab.layers.attention.scores import additive_score
from seqlab.layers.embedding.arguments import check_size


@keras.saving.register_keras_serializable(package="seqlab")
class BahdanauAttention(QueryAttention):
    r"""Additive attention: an MLP scores the decoder state $h_{d,i-1}$ against each encoder state $h_{e,j}$.

    Equations:
        $$ e_{i,j} = v^T \tanh\left(W_1 h_{d,i-1} + W_2 h_{e,j}\right) $$

        $$ a_{i,j} = \frac{\exp(e_{i,j})}{\sum_{k=1}^{T_x} \exp(e_{i,k})} $$

        $$ c_i = \sum_{j=1}^{T_x} a_{i,j} h_{e,j} $$

        The query is the decoder's state *before* step $i$ ($h_{d,i-1}$,
        Bahdanau's $s_{i-1}$); the values are the encoder states $h_{e,j}$,
        with a bidirectional encoder the concatenation $(h_{v,j}, h_{r,j})$ of
        its forward and backward states. Padded source positions $j$ are left
        out of the sum: their $a_{i,j}$ is exactly 0. $W_1$, $W_2$ and $v$ are
        stored as `(d_q, units)`, `(d_v, units)` and `(units,)` (Keras's
        row-vector layout, the transposes of the matrices written here).

    Args:
        units: Positive integer, the width of the score's hidden layer (the
            rows of $W_1$ and $W_2$).

    Call arguments:
        query: `(batch, d_q)`, the decoder state $h_{d,i-1}$, or a sequence of
            them `(batch, T, d_q)`.
        values: `(batch, S, d_v)`, the encoder states $h_{e,j}$.
        mask: Optional `(batch, S)` booleans, False on padded source positions.

    Returns:
        `(context, weights)`: $c_i$ `(batch, d_v)` and $a_{i,j}$ `(batch, S)`,
        or `(batch, T, d_v)` and `(batch, T, S)` for a sequence of queries.

    Example:

    ```python
    attention = BahdanauAttention(units=8)
    h_e = np.random.rand(2, 5, 6).astype("float32")  # encoder states, S = 5
    s = np.random.rand(2, 4).astype("float32")  # the decoder state before the step
    mask = np.array([[True] * 5, [True, True, True, False, False]])
    c, a = attention(s, h_e, mask=mask)  # (2, 6), (2, 5); a[1, 3:] == 0
    ```
    """

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = check_size("units", units)

    def build(self, query_shape, values_shape):
        super().build(query_shape, values_shape)
        self.W_1 = self.add_weight(shape=(query_shape[-1], self.units), name="W_1", initializer="glorot_uniform")
        self.W_2 = self.add_weight(shape=(values_shape[-1], self.units), name="W_2", initializer="glorot_uniform")
        self.v = self.add_weight(shape=(self.units,), name="v", initializer="glorot_uniform")

    def score(self, queries, values):
        """$e_{i,j}$, `(B, T, S)`."""
        return additive_score(ops.matmul(queries, self.W_1), ops.matmul(values, self.W_2), self.v)

    def get_config(self):
        return {**super().get_config(), "units": self.units}
