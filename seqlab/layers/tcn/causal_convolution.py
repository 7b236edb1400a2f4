r"""The dilated causal 1-D convolution of a temporal convolutional network, over a sequence or one step at a time."""

import keras
from keras import ops

from seqlab.checks import check_positive_int

__all__ = ["CausalConv1D"]


@keras.saving.register_keras_serializable(package="seqlab")
class CausalConv1D(keras.layers.Layer):
    r"""A dilated causal 1-D convolution, optionally weight-normalised: output $t$ reads steps $\le t$ only.

    Equations:
        $$ (F *_d \mathbf{x})_t = \sum_{i=0}^{k-1} f_i \, \mathbf{x}_{t - d i} + \mathbf{b},
           \qquad \mathbf{x}_s = \mathbf{0} \text{ for } s < 1 $$

        $$ f_{i,:,c} = g_c \, \frac{v_{i,:,c}}{\lVert v_{:,:,c} \rVert}
           \quad \text{(weight normalisation, Salimans and Kingma 2016)} $$

        Kernel size $k$, dilation $d$: the output at $t$ reads the $k$
        inputs $t, t - d, \dots, t - (k-1)d$, a span of $(k-1)d + 1$ steps,
        and the $(k-1)d$ zeros before the sequence stand in for the steps it
        has not seen; nothing after $t$ is read, so the layer can run on a
        stream. With weight normalisation (the default, as in Bai et al.
        2018) each output channel $c$ learns a direction $v_{:,:,c}$ and a
        length $g_c$ separately; $g$ starts at $\lVert v \rVert$, so the
        initial $f$ is the initialised $v$. `kernel` gives $f$ in Keras's
        `Conv1D` layout `(k, features, filters)`, oldest tap first: row
        $k - 1 - i$ is $f_i$. The mask zeroes the inputs at padded steps,
        so they read like the zeros before the sequence.

        Stepping keeps the last $(k-1)d$ inputs in a shift buffer, so each
        new step costs $k$ matrix products however long the sequence is:

        $$ S_t = [\mathbf{x}_{t-(k-1)d}, \dots, \mathbf{x}_{t-1}, \mathbf{x}_t], \qquad
           \mathbf{y}_t = \sum_{i=0}^{k-1} f_i \, S_{t,\,(k-1)d - d i} + \mathbf{b} $$

        (rows of $S_t$ numbered from 0), and the state after step $t$ is $S_t$
        without its oldest row. With
        `weight_norm=False` this is Keras's
        `Conv1D(padding="causal", dilation_rate=d)`.

    Args:
        filters: Positive integer, the output channels.
        kernel_size: $k$, a positive integer.
        dilation: $d$, a positive integer. Default 1.
        weight_norm: Learn $f$ as $g \, v / \lVert v \rVert$. Default `True`.
        kernel_initializer: Initializer of $v$ (of $f$ without weight
            normalisation). Default `"glorot_uniform"`.
        bias_initializer: Initializer of $\mathbf{b}$. Default `"zeros"`.
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: `(batch, steps, features)`.
        mask: Optional `(batch, steps)` booleans, False on padding; passed on.

    Returns:
        `(batch, steps, filters)`. `step(x_t, state)` returns
        `(y_t, state)`, `y_t` of shape `(batch, filters)`.

    Example:

    ```python
    conv = CausalConv1D(filters=4, kernel_size=3, dilation=2)
    x = np.random.normal(size=(2, 9, 3)).astype("float32")
    y = conv(x)  # (2, 9, 4); y[:, t] reads x[:, t], x[:, t - 2], x[:, t - 4]
    y_0, state = conv.step(x[:, 0], conv.initial_state(2))  # y_0 == y[:, 0]
    ```
    """

    def __init__(
        self,
        filters,
        kernel_size,
        dilation=1,
        weight_norm=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.filters = check_positive_int("filters", filters)
        self.kernel_size = check_positive_int("kernel_size", kernel_size)
        self.dilation = check_positive_int("dilation", dilation)
        self.weight_norm = bool(weight_norm)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.supports_masking = True
        self.input_spec = keras.layers.InputSpec(ndim=3)

    @property
    def history(self):
        """$(k-1)d$: how many past inputs the output at a step reads, and so the length of the step state."""
        return (self.kernel_size - 1) * self.dilation

    def build(self, input_shape):
        features = input_shape[-1]
        if features is None:
            raise ValueError(f"CausalConv1D needs a known number of features; received {tuple(input_shape)}.")
        shape = (self.kernel_size, features, self.filters)
        # v is the kernel itself without weight normalisation.
        self.v = self.add_weight(shape=shape, name="v" if self.weight_norm else "kernel",
                                 initializer=self.kernel_initializer)
        self.g = None
        if self.weight_norm:
            # g = ||v||, so f = v at initialisation; an initializer, not an assign, runs once even in a trace.
            self.g = self.add_weight(shape=(self.filters,), name="g",
                                     initializer=lambda shape, dtype=None: ops.cast(self._norm(self.v), dtype))
        self.bias = self.add_weight(shape=(self.filters,), name="bias", initializer=self.bias_initializer)

    @staticmethod
    def _norm(v):
        return ops.sqrt(ops.sum(ops.square(v), axis=(0, 1)))  # (filters,): one length per output channel

    @property
    def kernel(self):
        """$f$, shape `(k, features, filters)`, oldest tap first."""
        if self.g is None:
            return self.v
        return self.v * (self.g / ops.maximum(self._norm(self.v), 1e-12))  # a zero v stays finite

    def call(self, inputs, mask=None):
        if mask is not None:  # padded steps read as the zeros before the sequence
            inputs = inputs * ops.expand_dims(ops.cast(mask, inputs.dtype), -1)
        padded = ops.pad(inputs, [[0, 0], [self.history, 0], [0, 0]])  # (B, (k-1)d + T, F): causal zeros
        y = ops.conv(padded, self.kernel, strides=1, padding="valid", dilation_rate=self.dilation)
        return y + self.bias  # (B, T, filters)

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.filters)

    def initial_state(self, batch_size):
        """The shift buffer before the first step: $(k-1)d$ zero inputs, `(batch, (k-1)d, features)`."""
        if not self.built:
            raise ValueError("CausalConv1D.initial_state needs a built layer: call it on a sequence first.")
        return ops.zeros((batch_size, self.history, self.v.shape[1]), dtype=self.compute_dtype)

    def step(self, inputs, state):
        """One new step: `inputs` `(batch, features)` and the buffer give `(y_t, new buffer)`."""
        window = ops.concatenate([state, ops.expand_dims(inputs, 1)], axis=1)  # (B, (k-1)d + 1, F)
        taps = window[:, :: self.dilation]  # (B, k, F): x_{t-(k-1)d}, ..., x_t, oldest first like the kernel
        y = ops.einsum("bkf,kfc->bc", taps, self.kernel) + self.bias  # (B, filters)
        return y, window[:, 1:]

    def read(self, inputs, state):
        """Several new steps at once: `inputs` `(batch, steps, features)` after the buffer give
        `(y (batch, steps, filters), new buffer)`, what as many `step` calls give, in one convolution."""
        window = ops.concatenate([state, inputs], axis=1)  # (B, (k-1)d + steps, F): the buffer stands for the zeros
        y = ops.conv(window, self.kernel, strides=1, padding="valid", dilation_rate=self.dilation) + self.bias
        return y, (window[:, -self.history :] if self.history else state)  # k = 1 keeps an empty buffer

    def get_config(self):
        return {
            **super().get_config(),
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "dilation": self.dilation,
            "weight_norm": self.weight_norm,
            "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
            "bias_initializer": keras.initializers.serialize(self.bias_initializer),
        }
