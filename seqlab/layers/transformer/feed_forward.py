r"""The Transformer's position-wise feed-forward network: the same two-layer MLP at every position."""

import keras
from keras import ops

from seqlab.layers.attention.multi_head import check_rate
from seqlab.layers.embedding.arguments import check_size


@keras.saving.register_keras_serializable(package="seqlab")
class PositionwiseFeedForward(keras.layers.Layer):
    r"""Two dense layers applied to each position on its own: widen to `units`, activate, back to $d$.

    Equations:
        $$ \mathrm{FFN}(\mathbf{x}_t) = W_2 \max(0, W_1 \mathbf{x}_t + \mathbf{b}_1) + \mathbf{b}_2 $$

        (with `activation="relu"`; GPT uses GELU). $W_1$ is stored `(d, units)`,
        $W_2$ `(units, d)`: the output keeps the input width $d$. Dropout, if
        any, acts on the hidden layer.

    Args:
        units: Positive integer, the hidden width (the original Transformer: $4d$).
        activation: Keras activation name or callable, default `"relu"`.
        dropout: Dropout rate on the hidden layer, in [0, 1).

    Call arguments:
        x: `(batch, T, d)`.
        training: Python boolean, for the dropout.

    Returns:
        `(batch, T, d)`.

    Example:

    ```python
    ffn = PositionwiseFeedForward(units=16)
    y = ffn(np.random.rand(2, 5, 4).astype("float32"))  # (2, 5, 4)
    ```
    """

    def __init__(self, units, activation="relu", dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        self.units = check_size("units", units)
        self.activation = keras.activations.get(activation)
        self.dropout = check_rate("dropout", dropout)
        self.dropout_layer = keras.layers.Dropout(self.dropout)
        self.supports_masking = True

    def build(self, input_shape):
        d = input_shape[-1]
        self.W_1 = self.add_weight(shape=(d, self.units), name="W_1", initializer="glorot_uniform")
        self.b_1 = self.add_weight(shape=(self.units,), name="b_1", initializer="zeros")
        self.W_2 = self.add_weight(shape=(self.units, d), name="W_2", initializer="glorot_uniform")
        self.b_2 = self.add_weight(shape=(d,), name="b_2", initializer="zeros")

    def call(self, x, training=None):
        hidden = self.activation(ops.matmul(x, self.W_1) + self.b_1)  # (B, T, units)
        hidden = self.dropout_layer(hidden, training=training)
        return ops.matmul(hidden, self.W_2) + self.b_2

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {
            **super().get_config(),
            "units": self.units,
            "activation": keras.activations.serialize(self.activation),
            "dropout": self.dropout,
        }
