r"""The Transformer's encoder block: multi-head self-attention and a feed-forward network, each with a residual."""

import keras

from seqlab.layers.attention.multi_head import MultiHeadAttention, check_option, check_rate
from seqlab.layers.embedding.arguments import check_size
from seqlab.layers.transformer.feed_forward import PositionwiseFeedForward
from seqlab.layers.transformer.residual import check_norm, residual


def scored(output, return_attention_scores):
    """An attention layer's output as `(y, scores or None)`, whichever way it was called."""
    return output if return_attention_scores else (output, None)


@keras.saving.register_keras_serializable(package="seqlab")
class TransformerEncoderBlock(keras.layers.Layer):
    r"""One encoder block: every position attends to every real position, then passes through the FFN.

    Equations:
        $$ \text{post-norm:} \\ \mathbf{x} \leftarrow \mathrm{LN}(\mathbf{x} + \mathrm{MultiHead}(\mathbf{x})),
           \qquad \mathbf{x} \leftarrow \mathrm{LN}(\mathbf{x} + \mathrm{FFN}(\mathbf{x})) $$

        $$ \text{pre-norm:} \\ \mathbf{x} \leftarrow \mathbf{x} + \mathrm{MultiHead}(\mathrm{LN}(\mathbf{x})),
           \qquad \mathbf{x} \leftarrow \mathbf{x} + \mathrm{FFN}(\mathrm{LN}(\mathbf{x})) $$

        $\mathrm{MultiHead}$ is self-attention (queries, keys and values all
        from $\mathbf{x}$, see `MultiHeadAttention`); padded positions get
        weight exactly 0. Post-norm is the original Transformer's, pre-norm
        GPT-2's (then the stack ends with one more LN, outside the block).

    Args:
        num_heads: Positive integer $h$.
        ff_units: Positive integer, the FFN's hidden width (often $4d$).
        option: `"split"` ($d_k = d/h$, default) or `"full"` ($d_k = d$).
        norm: `"post"` (default) or `"pre"`.
        dropout: Dropout rate on each sublayer's output before the sum, in [0, 1).
        activation: The FFN's activation, default `"relu"`.
        epsilon: The layer norms' epsilon, default 1e-5.

    Call arguments:
        x: `(batch, T, d)`.
        mask: Optional `(batch, T)` booleans, False on padding (Keras masks
            propagate through).
        return_attention_scores: If True, also return the attention weights.
        training: Python boolean, for the dropout.

    Returns:
        `(batch, T, d)`, or `(y, scores)` with scores `(batch, h, T, T)`.

    Example:

    ```python
    block = TransformerEncoderBlock(num_heads=2, ff_units=16)
    x = np.random.rand(2, 5, 8).astype("float32")
    y, scores = block(x, mask=np.array([[True] * 5, [True] * 3 + [False] * 2]), return_attention_scores=True)
    # y (2, 5, 8); scores (2, 2, 5, 5), scores[1, :, :, 3:] == 0
    ```
    """

    def __init__(
        self, num_heads, ff_units, option="split", norm="post", dropout=0.0, activation="relu", epsilon=1e-5,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.num_heads = check_size("num_heads", num_heads)
        self.ff_units = check_size("ff_units", ff_units)
        self.option = check_option(option)
        self.norm = check_norm(norm)
        self.dropout = check_rate("dropout", dropout)
        self.activation = keras.activations.get(activation)
        self.epsilon = float(epsilon)
        self.attention = MultiHeadAttention(num_heads, option=option, name="attention")
        self.feed_forward = PositionwiseFeedForward(ff_units, activation=activation, name="feed_forward")
        self.norm_1 = keras.layers.LayerNormalization(epsilon=epsilon, name="norm_1")
        self.norm_2 = keras.layers.LayerNormalization(epsilon=epsilon, name="norm_2")
        self.dropout_layer = keras.layers.Dropout(self.dropout)
        self.supports_masking = True

    def build(self, input_shape):
        self.attention.build(input_shape, input_shape)
        self.feed_forward.build(input_shape)
        self.norm_1.build(input_shape)
        self.norm_2.build(input_shape)

    def call(self, x, mask=None, return_attention_scores=False, training=None):
        def attend(h):
            out = self.attention(
                h, h, value_mask=mask, return_attention_scores=return_attention_scores, training=training
            )
            return scored(out, return_attention_scores)

        x, scores = residual(x, attend, self.norm_1, self.dropout_layer, self.norm, training)
        x, _ = residual(
            x, lambda h: (self.feed_forward(h, training=training), None), self.norm_2, self.dropout_layer,
            self.norm, training,
        )
        return (x, scores) if return_attention_scores else x

    def get_config(self):
        return {
            **super().get_config(),
            "num_heads": self.num_heads,
            "ff_units": self.ff_units,
            "option": self.option,
            "norm": self.norm,
            "dropout": self.dropout,
            "activation": keras.activations.serialize(self.activation),
            "epsilon": self.epsilon,
        }
