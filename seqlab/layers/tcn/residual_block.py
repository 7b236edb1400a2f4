r"""A temporal convolutional network's residual block: two dilated causal convolutions and a shortcut."""

import keras
from keras import ops

from seqlab.checks import check_dropout, check_positive_int
from seqlab.layers.tcn.causal_convolution import CausalConv1D

__all__ = ["TemporalBlock"]


@keras.saving.register_keras_serializable(package="seqlab")
class TemporalBlock(keras.layers.Layer):
    r"""The residual block of Bai et al. (2018): two dilated causal convolutions with ReLU and dropout, plus a shortcut.

    Equations:
        $$ \mathbf{h}^{(1)}_t = \mathrm{Dropout}\big(\mathrm{ReLU}((F^{(1)} *_d \mathbf{x})_t)\big) $$

        $$ \mathbf{h}^{(2)}_t = \mathrm{Dropout}\big(\mathrm{ReLU}((F^{(2)} *_d \mathbf{h}^{(1)})_t)\big)
           = \mathcal{F}(\mathbf{x})_t $$

        $$ \mathbf{o}_t = \mathrm{ReLU}\big(\mathbf{x}_t W_r + \mathbf{b}_r + \mathcal{F}(\mathbf{x})_t\big) $$

        $$ R_{\text{block}} = 1 + 2(k-1)d $$

        $(F *_d \cdot)$ is a `CausalConv1D` of kernel size $k$ and dilation
        $d$, weight-normalised by default as in the paper. The shortcut is
        the identity, $\mathbf{o} = \mathrm{ReLU}(\mathbf{x} + \mathcal{F}(\mathbf{x}))$,
        when the input already has `filters` channels, else a $1 \times 1$
        convolution $W_r, \mathbf{b}_r$ (a `Dense` per step) that only
        matches the widths. Each convolution reads $(k-1)d$ steps back, so
        the block reads $2(k-1)d$ steps before $t$ and none after. Padded
        steps (mask False) are zeroed at the input of each convolution, so
        every real step gets the output of its unpadded sequence, whether a
        batch is padded on the right or on the left.

    Args:
        filters: Positive integer, the channels of $\mathbf{h}$ and $\mathbf{o}$.
        kernel_size: $k$, a positive integer.
        dilation: $d$, a positive integer. Default 1.
        dropout: Fraction in [0, 1) of $\mathbf{h}^{(1)}$ and $\mathbf{h}^{(2)}$
            dropped while training. Default 0.
        weight_norm: Weight-normalise both convolutions. Default `True`.
        kernel_initializer: Initializer of the convolutions' kernels and of
            $W_r$. Default `"glorot_uniform"`.
        bias_initializer: Initializer of the biases. Default `"zeros"`.
        seed: Random seed of the dropout masks.
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: `(batch, steps, features)`.
        mask: Optional `(batch, steps)` booleans, False on padding; passed on.
        training: Whether dropout is active.

    Returns:
        `(batch, steps, filters)`. `step(x_t, state)` returns `(o_t, state)`,
        without dropout.

    Example:

    ```python
    block = TemporalBlock(filters=4, kernel_size=2, dilation=2)
    x = np.random.normal(size=(2, 9, 3)).astype("float32")
    o = block(x)  # (2, 9, 4): o[:, t] reads x[:, t - 4 : t + 1]
    ```
    """

    def __init__(
        self,
        filters,
        kernel_size,
        dilation=1,
        dropout=0.0,
        weight_norm=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.filters = check_positive_int("filters", filters)
        self.kernel_size = check_positive_int("kernel_size", kernel_size)
        self.dilation = check_positive_int("dilation", dilation)
        self.dropout = check_dropout(dropout)
        self.weight_norm = bool(weight_norm)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.seed = seed
        self.supports_masking = True
        self.input_spec = keras.layers.InputSpec(ndim=3)

    @property
    def receptive_field(self):
        r"""$1 + 2(k-1)d$: the steps output $t$ reads, its own included."""
        return 1 + 2 * (self.kernel_size - 1) * self.dilation

    def build(self, input_shape):
        features = input_shape[-1]
        if features is None:
            raise ValueError(f"TemporalBlock needs a known number of features; received {tuple(input_shape)}.")
        options = dict(
            filters=self.filters, kernel_size=self.kernel_size, dilation=self.dilation, weight_norm=self.weight_norm,
            kernel_initializer=self.kernel_initializer, bias_initializer=self.bias_initializer, dtype=self.dtype_policy,
        )
        self.conv1 = CausalConv1D(name="conv1", **options)
        self.conv2 = CausalConv1D(name="conv2", **options)
        self.conv1.build(input_shape)
        self.conv2.build((*input_shape[:-1], self.filters))
        self.dropout1 = keras.layers.Dropout(self.dropout, seed=self.seed, name="dropout1")
        self.dropout2 = keras.layers.Dropout(self.dropout, seed=None if self.seed is None else self.seed + 1,
                                             name="dropout2")
        self.residual = None  # identity when the widths already match
        if features != self.filters:
            self.residual = keras.layers.Dense(
                self.filters, kernel_initializer=self.kernel_initializer, bias_initializer=self.bias_initializer,
                dtype=self.dtype_policy, name="residual",
            )
            self.residual.build(input_shape)

    def _shortcut(self, inputs):
        return inputs if self.residual is None else self.residual(inputs)

    def call(self, inputs, mask=None, training=False):
        h = self.dropout1(ops.relu(self.conv1(inputs, mask=mask)), training=training)  # (B, T, filters)
        h = self.dropout2(ops.relu(self.conv2(h, mask=mask)), training=training)
        return ops.relu(self._shortcut(inputs) + h)

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.filters)

    def initial_state(self, batch_size):
        """Both convolutions' shift buffers of zeros: `[(batch, (k-1)d, features), (batch, (k-1)d, filters)]`."""
        if not self.built:
            raise ValueError("TemporalBlock.initial_state needs a built layer: call it on a sequence first.")
        return [self.conv1.initial_state(batch_size), self.conv2.initial_state(batch_size)]

    def step(self, inputs, state):
        """One new step, `inputs` `(batch, features)`: `(o_t, new state)`; dropout is off."""
        o, state = self.read(ops.expand_dims(inputs, 1), state)
        return o[:, 0], state

    def read(self, inputs, state, training=False):
        """Several new steps after the state, `inputs` `(batch, steps, features)`: `(o (batch, steps, filters),
        new state)`, as many `step` calls in one pass (with dropout while `training`)."""
        h, first = self.conv1.read(inputs, state[0])
        h = self.dropout1(ops.relu(h), training=training)
        h, second = self.conv2.read(h, state[1])
        h = self.dropout2(ops.relu(h), training=training)
        return ops.relu(self._shortcut(inputs) + h), [first, second]

    def get_config(self):
        return {
            **super().get_config(),
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "dilation": self.dilation,
            "dropout": self.dropout,
            "weight_norm": self.weight_norm,
            "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
            "bias_initializer": keras.initializers.serialize(self.bias_initializer),
            "seed": self.seed,
        }
