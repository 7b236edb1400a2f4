r"""The Transformer's residual connection around a sublayer, with the norm after (original) or before (GPT-2)."""

NORMS = ("post", "pre")


def check_norm(norm):
    """Returns `norm` if it is "post" or "pre", else raises ValueError."""
    if norm not in NORMS:
        raise ValueError(
            f"Argument `norm` must be one of {NORMS} ('post': LN(x + Sublayer(x)), the original Transformer; "
            f"'pre': x + Sublayer(LN(x)), GPT-2). Received: norm={norm!r}"
        )
    return norm


def residual(x, sublayer, layer_norm, dropout, norm, training=None):
    r"""$\mathrm{LN}(x + \mathrm{Sublayer}(x))$ (post) or $x + \mathrm{Sublayer}(\mathrm{LN}(x))$ (pre).

    Args:
        x: `(B, T, d)`.
        sublayer: A function of `(B, T, d)` returning `(y, extra)`: `y` the
            sublayer's output, `extra` passed through (attention scores, a cache).
        layer_norm: The `keras.layers.LayerNormalization` of this sublayer.
        dropout: A `keras.layers.Dropout`, applied to `y` before the sum.
        norm: "post" or "pre".
        training: Python boolean, for the dropout.

    Returns:
        `(new x, extra)`.
    """
    if norm == "pre":
        y, extra = sublayer(layer_norm(x))
        return x + dropout(y, training=training), extra
    y, extra = sublayer(x)
    return layer_norm(x + dropout(y, training=training)), extra
