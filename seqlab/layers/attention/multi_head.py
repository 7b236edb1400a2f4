r"""Multi-head attention (seeds 000, 002): h heads of scaled dot-product attention, concatenated and mixed by W^O."""

import keras
from keras import ops

from seqlab.layers.attention.masks import causal_mask, combine_masks, padding_mask
from seqlab.layers.attention.scaled_dot_product import broadcast_rank, scaled_dot_product_attention
from seqlab.layers.embedding.arguments import check_size

HEAD_OPTIONS = ("split", "full")


def check_option(option):
    """Returns `option` if it is one of the notes' two multi-head options, else raises ValueError."""
    if option not in HEAD_OPTIONS:
        raise ValueError(
            f"Argument `option` must be one of {HEAD_OPTIONS} ('split': d_k = d/h, 'full': d_k = d). "
            f"Received: option={option!r}"
        )
    return option


def check_rate(name, value):
    """Returns `value` as a float in [0, 1), else raises ValueError (a dropout rate)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value < 1.0:
        raise ValueError(f"Argument `{name}` must be a number in [0, 1). Received: {name}={value!r}")
    return float(value)


@keras.saving.register_keras_serializable(package="seqlab")
class MultiHeadAttention(keras.layers.Layer):
    r"""Multi-head attention with the weight layout and call of `keras.layers.MultiHeadAttention`.

    Equations:
        $$ \mathbf{q}^{(r)}_i = W^{Q,r} \mathbf{x}_i, \quad
           \mathbf{k}^{(r)}_j = W^{K,r} \mathbf{x}_j, \quad
           \mathbf{v}^{(r)}_j = W^{V,r} \mathbf{x}_j \qquad (r = 1 \dots h) $$

        $$ a'^{(r)}_{ij} = \frac{\mathbf{q}^{(r)T}_i \mathbf{k}^{(r)}_j}{\sqrt{d_k}}, \qquad
           a^{(r)}_{ij} = \mathrm{softmax}_j(a'^{(r)}_{ij}), \qquad
           \mathbf{y}^{(r)}_i = \sum_j a^{(r)}_{ij} \mathbf{v}^{(r)}_j $$

        $$ \mathbf{y}_i = W^O [\mathbf{y}^{(1)}_i ; \dots ; \mathbf{y}^{(h)}_i] + \mathbf{b}^O $$

        Option `"split"` (the notes' option 1): $d_k = d/h$, so the $h$ heads
        cost what one full-width head costs. Option `"full"` (option 2): every
        head has $d_k = d$, and $W^O$ is $d \times (d\,h)$. Masked keys get
        weight exactly 0 (the fused path and the explicit path agree; a query
        with no key left is the one case they do not: zeros vs uniform).
        Weights, in `get_weights()` order as Keras's: $W^Q$ `(d_q, h, d_k)`,
        $\mathbf{b}^Q$ `(h, d_k)`, $W^K$, $\mathbf{b}^K$, $W^V$, $\mathbf{b}^V$
        (same shapes, from the key's and value's widths), $W^O$ `(h, d_k, d_q)`,
        $\mathbf{b}^O$ `(d_q,)`.

    Args:
        num_heads: Positive integer $h$.
        key_dim: Positive integer $d_k$ (also the values' width per head);
            None (default) takes it from `option`.
        option: `"split"` (default, $d_k = d/h$, needs $h$ to divide $d$) or
            `"full"` ($d_k = d$).
        dropout: Dropout rate on the attention weights, in [0, 1).
        use_bias: Whether the four projections have biases (default True).
        kernel_initializer, bias_initializer: Keras initializers.
        seed: Optional integer seed of the dropout.

    Call arguments:
        query: `(batch, T_q, d_q)`, the inputs whose positions ask.
        value: `(batch, T_k, d_v)`, the inputs that are read.
        key: Optional `(batch, T_k, d_k_in)`; None (default) uses `value`.
        query_mask, value_mask, key_mask: Optional `(batch, T)` booleans, filled
            from Keras masks; padded keys (value/key masks) get weight 0, the
            query's Keras mask is carried to the output.
        attention_mask: Optional booleans, True where query $i$ may read key
            $j$: `(T_q, T_k)`, `(batch, T_q, T_k)` or `(batch, h, T_q, T_k)`.
        return_attention_scores: If True, also return the weights (computed
            explicitly; otherwise the fused `keras.ops.dot_product_attention` runs).
        training: Python boolean, for the dropout.
        use_causal_mask: If True, query $i$ reads keys $j \le i + (T_k - T_q)$ only.

    Returns:
        The output `(batch, T_q, d_q)`, or `(output, scores)` with the weights
        `(batch, h, T_q, T_k)`.

    Example:

    ```python
    mha = MultiHeadAttention(num_heads=2)
    x = np.random.rand(2, 5, 8).astype("float32")
    y, scores = mha(x, x, use_causal_mask=True, return_attention_scores=True)  # (2, 5, 8), (2, 2, 5, 5)
    reference = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    reference(x, x)
    mha.set_weights(reference.get_weights())
    np.testing.assert_allclose(mha(x, x), reference(x, x), atol=1e-5)
    ```
    """

    def __init__(
        self,
        num_heads,
        key_dim=None,
        option="split",
        dropout=0.0,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.num_heads = check_size("num_heads", num_heads)
        self.key_dim = None if key_dim is None else check_size("key_dim", key_dim)
        self.option = check_option(option)
        self.dropout = check_rate("dropout", dropout)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.seed = seed
        self.dropout_layer = keras.layers.Dropout(self.dropout, seed=seed)
        self.supports_masking = True

    def head_dim(self, d):
        """$d_k$ for a query width $d$: `key_dim` if given, else $d/h$ (split) or $d$ (full)."""
        if self.key_dim is not None:
            return self.key_dim
        if self.option == "full":
            return d
        if d % self.num_heads:
            raise ValueError(
                f"Option 'split' needs num_heads to divide the model width d, so that d_k = d/h; received "
                f"d={d}, num_heads={self.num_heads}. Choose num_heads dividing {d}, option='full' or a key_dim."
            )
        return d // self.num_heads

    def _projection(self, name, width, d_k):
        kernel = self.add_weight(
            shape=(width, self.num_heads, d_k), name=f"W_{name}", initializer=self.kernel_initializer
        )
        bias = None
        if self.use_bias:
            bias = self.add_weight(shape=(self.num_heads, d_k), name=f"b_{name}", initializer=self.bias_initializer)
        return kernel, bias

    def build(self, query_shape, value_shape, key_shape=None):
        key_shape = value_shape if key_shape is None else key_shape
        d = query_shape[-1]
        self.d_k = self.head_dim(d)
        # Keras's order: query, key, value, output (kernel then bias), so set_weights moves weights across.
        self.W_Q, self.b_Q = self._projection("Q", d, self.d_k)
        self.W_K, self.b_K = self._projection("K", key_shape[-1], self.d_k)
        self.W_V, self.b_V = self._projection("V", value_shape[-1], self.d_k)
        self.W_O = self.add_weight(
            shape=(self.num_heads, self.d_k, d), name="W_O", initializer=self.kernel_initializer
        )
        self.b_O = self.add_weight(shape=(d,), name="b_O", initializer=self.bias_initializer) if self.use_bias else None

    def _project(self, x, kernel, bias):
        """`(B, T, d)` -> `(B, h, T, d_k)`: every head's projection at once."""
        y = ops.einsum("btd,dhk->bthk", x, kernel)
        if bias is not None:
            y = y + bias
        return ops.transpose(y, (0, 2, 1, 3))  # (B, T, h, d_k) -> (B, h, T, d_k)

    def project_key_value(self, x, key=None):
        r"""Every head's keys and values of `x`: $(W^{K,r} \mathbf{x}_j, W^{V,r} \mathbf{x}_j)$.

        Args:
            x: `(batch, T, d_v)`, the inputs that are read (the values).
            key: Optional separate key inputs `(batch, T, d_k_in)`; None uses `x`.

        Returns:
            `(k, v)`, each `(batch, h, T, d_k)`: what a key/value cache stores.
        """
        if not self.built:
            self.build(x.shape, x.shape, None if key is None else key.shape)
        key = x if key is None else key
        return self._project(key, self.W_K, self.b_K), self._project(x, self.W_V, self.b_V)

    def attend(self, query, k, v, attention_mask=None, return_attention_scores=True, training=None):
        r"""The queries of `query` over given (e.g. cached) keys and values, through $W^O$.

        Args:
            query: `(batch, T_q, d_q)`, not yet projected.
            k, v: `(batch, h, T_k, d_k)` from `project_key_value`.
            attention_mask: Optional booleans `(T_q, T_k)`, `(batch, T_q, T_k)`
                or `(batch, h, T_q, T_k)`, True where query $i$ may read key $j$.
            return_attention_scores: If False, take the fused path and return
                None for the scores.
            training: Python boolean, for the dropout.

        Returns:
            `(output (batch, T_q, d_q), scores (batch, h, T_q, T_k) or None)`.
        """
        q = self._project(query, self.W_Q, self.b_Q)  # (B, h, T_q, d_k)
        mask = None
        if attention_mask is not None:
            mask = ops.cast(attention_mask, "bool")
            if len(mask.shape) == 3:
                mask = ops.expand_dims(mask, 1)  # (B, T_q, T_k) -> (B, 1, T_q, T_k): every head alike
            mask = broadcast_rank(mask, 4)
        if return_attention_scores or self.dropout > 0.0:
            y, scores = scaled_dot_product_attention(q, k, v, mask)
            weights = self.dropout_layer(scores, training=training)
            y = ops.matmul(weights, v) if self.dropout > 0.0 else y  # (B, h, T_q, d_k)
            y = ops.transpose(y, (0, 2, 1, 3))
        else:
            # The fused kernel wants (B, T, h, d_k).
            q, k, v = (ops.transpose(t, (0, 2, 1, 3)) for t in (q, k, v))
            y = ops.dot_product_attention(q, k, v, mask=mask, scale=1.0 / self.d_k**0.5)
            scores = None
        output = ops.einsum("bthk,hkd->btd", y, self.W_O)  # W^O [y^(1); ...; y^(h)]
        if self.b_O is not None:
            output = output + self.b_O
        return output, (scores if return_attention_scores else None)

    def call(
        self,
        query,
        value,
        key=None,
        query_mask=None,
        value_mask=None,
        key_mask=None,
        attention_mask=None,
        return_attention_scores=False,
        training=None,
        use_causal_mask=False,
    ):
        k, v = self.project_key_value(value, key)
        real_keys = [padding_mask(m) for m in (value_mask, key_mask if key is not None else None) if m is not None]
        causal = causal_mask(ops.shape(query)[1], ops.shape(value)[1]) if use_causal_mask else None
        given = attention_mask
        if given is not None and len(given.shape) == 4:
            given = ops.cast(given, "bool")
            real_keys = [ops.expand_dims(m, 1) for m in real_keys]  # (B, 1, T_k) -> (B, 1, 1, T_k)
        mask = combine_masks(given, causal, *real_keys)
        output, scores = self.attend(query, k, v, mask, return_attention_scores, training)
        return (output, scores) if return_attention_scores else output

    def get_config(self):
        return {
            **super().get_config(),
            "num_heads": self.num_heads,
            "key_dim": self.key_dim,
            "option": self.option,
            "dropout": self.dropout,
            "use_bias": self.use_bias,
            "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
            "bias_initializer": keras.initializers.serialize(self.bias_initializer),
            "seed": self.seed,
        }
