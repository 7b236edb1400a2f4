r"""The Transformer's decoder block: causal self-attention, cross-attention on the source, a feed-forward network."""

import keras
from keras import ops

from seqlab.layers.attention.masks import causal_mask
from seqlab.layers.attention.multi_head import MultiHeadAttention, check_option, check_rate
from seqlab.layers.embedding.arguments import check_size
from seqlab.layers.transformer.encoder_block import scored
from seqlab.layers.transformer.feed_forward import PositionwiseFeedForward
from seqlab.layers.transformer.residual import check_norm, residual


@keras.saving.register_keras_serializable(package="seqlab")
class TransformerDecoderBlock(keras.layers.Layer):
    r"""One decoder block: each position reads itself and the positions before it, then the source, then the FFN.

    Equations:
        $$ \mathbf{x} \leftarrow \mathbf{x} + \mathrm{MaskedMultiHead}(\mathbf{x}), \quad
           \mathbf{x} \leftarrow \mathbf{x} + \mathrm{MultiHead}(\mathbf{x}, \mathbf{c}), \quad
           \mathbf{x} \leftarrow \mathbf{x} + \mathrm{FFN}(\mathbf{x}) $$

        $$ \text{post-norm: } \mathrm{LN}(\mathbf{x} + \mathrm{Sublayer}(\mathbf{x})), \qquad
           \text{pre-norm: } \mathbf{x} + \mathrm{Sublayer}(\mathrm{LN}(\mathbf{x})) $$

        $$ a_{ij} = 0 \quad \text{for } j > i \quad \text{(the causal mask)} $$

        The causal mask keeps every position from peeking at later tokens.
        The cross-attention's queries come from the decoder, its keys and
        values from the encoder's outputs $\mathbf{c}$ (`context`); without
        `cross_attention` the block is GPT's. For generation, `init_cache` and
        `step` keep every position's self-attention keys and values in a
        fixed-size cache (static shapes, so a jit-compiled step compiles once),
        and `step` equals `call` on the whole prefix.

    Args:
        num_heads: Positive integer $h$.
        ff_units: Positive integer, the FFN's hidden width.
        cross_attention: Whether the block attends to a `context` (default True).
        option: `"split"` ($d_k = d/h$, default) or `"full"` ($d_k = d$).
        norm: `"post"` (default) or `"pre"`.
        dropout: Dropout rate on each sublayer's output before the sum, in [0, 1).
        activation: The FFN's activation, default `"relu"`.
        epsilon: The layer norms' epsilon, default 1e-5.

    Call arguments:
        x: `(batch, T, d)`, the target so far (teacher-forced).
        context: `(batch, S, d_c)`, the encoder's outputs; required with
            `cross_attention`, refused without.
        mask: Optional `(batch, T)` booleans, False on target padding.
        context_mask: Optional `(batch, S)` booleans, False on source padding.
        return_attention_scores: If True, also return the attention weights.
        training: Python boolean, for the dropout.

    Returns:
        `(batch, T, d)`, or `(y, scores)` with `scores = {"self": (batch, h, T, T),
        "cross": (batch, h, T, S)}` (no `"cross"` without cross-attention).

    Example:

    ```python
    block = TransformerDecoderBlock(num_heads=2, ff_units=16)
    x, c = np.random.rand(2, 5, 8).astype("float32"), np.random.rand(2, 7, 8).astype("float32")
    y = block(x, c)  # (2, 5, 8)
    cache = block.init_cache(batch_size=2, max_length=5)
    steps = []
    for t in range(5):
        y_t, cache = block.step(x[:, t : t + 1], cache, t, context=c)
        steps.append(y_t)
    np.testing.assert_allclose(np.concatenate(steps, axis=1), y, atol=1e-5)
    ```
    """

    def __init__(
        self, num_heads, ff_units, cross_attention=True, option="split", norm="post", dropout=0.0,
        activation="relu", epsilon=1e-5, **kwargs,
    ):
        super().__init__(**kwargs)
        self.num_heads = check_size("num_heads", num_heads)
        self.ff_units = check_size("ff_units", ff_units)
        self.cross_attention = bool(cross_attention)
        self.option = check_option(option)
        self.norm = check_norm(norm)
        self.dropout = check_rate("dropout", dropout)
        self.activation = keras.activations.get(activation)
        self.epsilon = float(epsilon)
        self.self_attention = MultiHeadAttention(num_heads, option=option, name="self_attention")
        self.norm_1 = keras.layers.LayerNormalization(epsilon=epsilon, name="norm_1")
        if self.cross_attention:
            self.cross = MultiHeadAttention(num_heads, option=option, name="cross_attention")
            self.norm_cross = keras.layers.LayerNormalization(epsilon=epsilon, name="norm_cross")
        self.feed_forward = PositionwiseFeedForward(ff_units, activation=activation, name="feed_forward")
        self.norm_2 = keras.layers.LayerNormalization(epsilon=epsilon, name="norm_2")
        self.dropout_layer = keras.layers.Dropout(self.dropout)
        self.supports_masking = True

    def build(self, x_shape, context_shape=None):
        self.self_attention.build(x_shape, x_shape)
        self.norm_1.build(x_shape)
        if self.cross_attention:
            # The source's width may differ from d; without a context shape yet, assume d.
            self.cross.build(x_shape, x_shape if context_shape is None else context_shape)
            self.norm_cross.build(x_shape)
        self.feed_forward.build(x_shape)
        self.norm_2.build(x_shape)

    def _check_context(self, context):
        if self.cross_attention and context is None:
            raise ValueError(
                "This decoder block has cross_attention=True: pass the encoder's outputs as `context`, "
                "or build it with cross_attention=False (a GPT block)."
            )
        if not self.cross_attention and context is not None:
            raise ValueError("This decoder block has cross_attention=False: it takes no `context`.")

    def _cross_and_feed_forward(self, x, context, context_mask, return_attention_scores, training):
        """The sublayers after self-attention: cross-attention (if any) and the FFN; `(x, cross scores)`."""
        scores = None
        if self.cross_attention:
            def attend(h):
                out = self.cross(
                    h, context, value_mask=context_mask, return_attention_scores=return_attention_scores,
                    training=training,
                )
                return scored(out, return_attention_scores)

            x, scores = residual(x, attend, self.norm_cross, self.dropout_layer, self.norm, training)
        x, _ = residual(
            x, lambda h: (self.feed_forward(h, training=training), None), self.norm_2, self.dropout_layer,
            self.norm, training,
        )
        return x, scores

    def call(self, x, context=None, mask=None, context_mask=None, return_attention_scores=False, training=None):
        self._check_context(context)
        if mask is None:
            mask = getattr(x, "_keras_mask", None)  # Keras fills `mask` only when x is the one tensor argument

        def attend_self(h):
            out = self.self_attention(
                h, h, value_mask=mask, use_causal_mask=True, return_attention_scores=return_attention_scores,
                training=training,
            )
            return scored(out, return_attention_scores)

        x, self_scores = residual(x, attend_self, self.norm_1, self.dropout_layer, self.norm, training)
        x, cross_scores = self._cross_and_feed_forward(x, context, context_mask, return_attention_scores, training)
        if not return_attention_scores:
            return x
        scores = {"self": self_scores}
        if self.cross_attention:
            scores["cross"] = cross_scores
        return x, scores

    def init_cache(self, batch_size, max_length):
        r"""An empty self-attention key/value cache: `(k, v)`, zeros `(batch_size, h, max_length, d_k)`.

        The block must be built (called once, or `build(x_shape)`), so that $d_k$ is known.
        """
        if not self.built:
            raise ValueError("Build the block (call it once, or block.build((None, None, d))) before init_cache.")
        shape = (batch_size, self.num_heads, check_size("max_length", max_length), self.self_attention.d_k)
        return ops.zeros(shape, "float32"), ops.zeros(shape, "float32")

    def step(self, x, cache, position, context=None, context_mask=None):
        r"""The block on new tokens at positions `position .. position+n-1`, reading the cached earlier ones.

        Args:
            x: `(batch, n, d)`, the new tokens (n = 1 when generating).
            cache: `(k, v)` from `init_cache` or the previous step, `(batch, h, L, d_k)`.
            position: Integer or scalar integer tensor, the first new token's position (0-based).
            context: `(batch, S, d_c)` with cross-attention.
            context_mask: Optional `(batch, S)` booleans.

        Returns:
            `(y (batch, n, d), new cache)`: the new tokens' keys and values written at
            `position ..` with `keras.ops.slice_update`; shapes never change.
        """
        self._check_context(context)
        k_cache, v_cache = cache
        n, max_length = x.shape[1], k_cache.shape[2]

        def attend_self(h):
            k_new, v_new = self.self_attention.project_key_value(h)  # (B, h, n, d_k)
            start = (0, 0, position, 0)
            k, v = ops.slice_update(k_cache, start, k_new), ops.slice_update(v_cache, start, v_new)
            # Cache slot j is visible to new token i when j <= position + i: past and present, never the empty future.
            visible = causal_mask(n, max_length, start=position)
            y, _ = self.self_attention.attend(h, k, v, visible, return_attention_scores=False)
            return y, (k, v)

        x, new_cache = residual(x, attend_self, self.norm_1, self.dropout_layer, self.norm)
        x, _ = self._cross_and_feed_forward(x, context, context_mask, False, None)
        return x, new_cache

    def get_config(self):
        return {
            **super().get_config(),
            "num_heads": self.num_heads,
            "ff_units": self.ff_units,
            "cross_attention": self.cross_attention,
            "option": self.option,
            "norm": self.norm,
            "dropout": self.dropout,
            "activation": keras.activations.serialize(self.activation),
            "epsilon": self.epsilon,
        }
