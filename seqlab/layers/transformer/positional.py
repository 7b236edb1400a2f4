r"""Positional information for the Transformer (seeds 000, 002): the sinusoids PosEnc(t, i), or learned vectors."""

import keras
from keras import ops

from seqlab.layers.embedding.arguments import check_size

__all__ = ["LearnedPositionalEmbedding", "SinusoidalPositionalEncoding", "sinusoidal_encoding"]


def check_base(base):
    """Returns `base` as a float > 1, else raises ValueError (the sinusoids' $n$)."""
    if isinstance(base, bool) or not isinstance(base, (int, float)) or base <= 1:
        raise ValueError(f"Argument `base` must be a number greater than 1 (the notes' n). Received: base={base!r}")
    return float(base)


def sinusoidal_encoding(length, depth, base=10000.0, start=0):
    r"""The notes' sinusoidal positional encoding, one row per position.

    $$ \mathrm{PosEnc}(t, 2i) = \sin\left(\frac{t - 1}{n^{2i/r}}\right), \qquad
       \mathrm{PosEnc}(t, 2i + 1) = \cos\left(\frac{t - 1}{n^{2i/r}}\right) $$

    Positions count from $t = 1$, so row 0 is position 1 (angle 0); row $k$
    is position `start + k + 1`. Column pairs $(2i, 2i+1)$ share a frequency,
    from 1 (first pair) down to about $1/n$ (last pair).

    Args:
        length: Number of rows (positions), an integer or a scalar tensor.
        depth: $r$, the number of columns (an odd $r$ ends with a sine column).
        base: $n$, default 10000.
        start: Offset of the first row (integer or scalar tensor), for the
            tokens after a cached prefix.

    Returns:
        float32 `(length, depth)`.
    """
    depth = check_size("depth", depth)
    t_minus_1 = ops.cast(ops.arange(length) + start, "float32")[:, None]  # (length, 1)
    column = ops.arange(depth)
    exponent = ops.cast(column - column % 2, "float32") / depth  # 2i/r for columns 2i and 2i+1
    angle = t_minus_1 / ops.power(check_base(base), exponent)[None, :]  # (length, depth)
    return ops.where(column % 2 == 0, ops.sin(angle), ops.cos(angle))


def check_start(start, length, max_length):
    """Raises ValueError when a static `start + length` runs past `max_length`."""
    if isinstance(start, int) and isinstance(length, int) and start + length > max_length:
        raise ValueError(
            f"The positions {start}..{start + length - 1} run past max_length={max_length} learned positions. "
            "Build the layer with a larger max_length, or feed shorter sequences."
        )


@keras.saving.register_keras_serializable(package="seqlab")
class SinusoidalPositionalEncoding(keras.layers.Layer):
    r"""Adds the notes' fixed sinusoids to a sequence of vectors: where each token is, without weights.

    Equations:
        $$ \mathrm{PosEnc}(t, 2i) = \sin\left(\frac{t - 1}{n^{2i/r}}\right), \qquad
           \mathrm{PosEnc}(t, 2i + 1) = \cos\left(\frac{t - 1}{n^{2i/r}}\right) $$

        $$ \mathbf{x}'_t = \mathbf{x}_t + \mathrm{PosEnc}(t, \cdot) $$

        $r$ is the input width, $n$ the base. No weights: any length works.

    Args:
        base: $n$, a number > 1; default 10000.

    Call arguments:
        x: `(batch, T, r)` token vectors (e.g. embeddings).
        start: Offset of the first position (integer or scalar tensor),
            default 0; the tokens after a cached prefix of `start` tokens.

    Returns:
        `(batch, T, r)`: $\mathbf{x}_t + \mathrm{PosEnc}(\mathrm{start} + t, \cdot)$.

    Example:

    ```python
    x = np.zeros((2, 6, 4), "float32")
    y = SinusoidalPositionalEncoding()(x)  # y[0, 0] == [0, 1, 0, 1]: position 1, angle 0
    ```
    """

    def __init__(self, base=10000.0, **kwargs):
        super().__init__(**kwargs)
        self.base = check_base(base)
        self.supports_masking = True

    def call(self, x, start=0):
        encoding = sinusoidal_encoding(ops.shape(x)[1], x.shape[-1], self.base, start)
        return x + ops.cast(encoding, x.dtype)[None]

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "base": self.base}


@keras.saving.register_keras_serializable(package="seqlab")
class LearnedPositionalEmbedding(keras.layers.Layer):
    r"""Adds a learned vector per position (BERT, GPT): a table $P$ of `max_length` rows.

    Equations:
        $$ \mathbf{x}'_t = \mathbf{x}_t + P_{t} $$

        $P$ is `(max_length, r)`; positions past `max_length` have no row, so
        a longer input is refused.

    Args:
        max_length: Positive integer, the number of learned positions.
        embeddings_initializer: Keras initializer of $P$; default a normal
            with standard deviation 0.02 (GPT-2's).

    Call arguments:
        x: `(batch, T, r)` token vectors.
        start: Offset of the first position (integer or scalar tensor),
            default 0. A static `start + T > max_length` raises ValueError.

    Returns:
        `(batch, T, r)`: $\mathbf{x}_t + P_{\mathrm{start} + t}$.

    Example:

    ```python
    x = np.zeros((2, 6, 4), "float32")
    layer = LearnedPositionalEmbedding(max_length=8)
    y = layer(x)  # y[b] == P[:6]
    ```
    """

    def __init__(self, max_length, embeddings_initializer=None, **kwargs):
        super().__init__(**kwargs)
        self.max_length = check_size("max_length", max_length)
        self.embeddings_initializer = keras.initializers.get(
            embeddings_initializer or keras.initializers.RandomNormal(stddev=0.02)
        )
        self.supports_masking = True

    def build(self, input_shape):
        if input_shape[1] is not None:
            check_start(0, input_shape[1], self.max_length)
        self.P = self.add_weight(
            shape=(self.max_length, input_shape[-1]), name="P", initializer=self.embeddings_initializer
        )

    def call(self, x, start=0):
        length = x.shape[1]
        check_start(start, length, self.max_length)
        length = ops.shape(x)[1] if length is None else length
        # P[start : start + T] as a gather: XLA compiles a slice with a tensor start anew for every start value.
        rows = ops.take(self.P, start + ops.arange(length), axis=0)
        return x + ops.cast(rows, x.dtype)[None]

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {
            **super().get_config(),
            "max_length": self.max_length,
            "embeddings_initializer": keras.initializers.serialize(self.embeddings_initializer),
        }
