r"""The temporal convolutional network (Bai et al. 2018): residual blocks of dilated causal convolutions, stacked."""

import keras
from keras import ops

from seqlab.checks import check_dropout, check_positive_int
from seqlab.layers.last_step import LastRealStep
from seqlab.layers.tcn.receptive_field import check_dilations, receptive_field, receptive_positions
from seqlab.layers.tcn.residual_block import TemporalBlock

__all__ = ["TemporalConvNet"]


@keras.saving.register_keras_serializable(package="seqlab")
class TemporalConvNet(keras.layers.Layer):
    r"""A temporal convolutional network: residual blocks of dilated causal convolutions, dilations doubling.

    Equations:
        $$ (F *_d \mathbf{x})_t = \sum_{i=0}^{k-1} f_i \, \mathbf{x}_{t - d i} $$

        $$ \mathbf{z}^{(l)} = \mathrm{ReLU}\big(\mathbf{z}^{(l-1)} W^{(l)}_r
           + \mathcal{F}_{d_l}(\mathbf{z}^{(l-1)})\big),
           \qquad \mathbf{z}^{(0)} = \mathbf{x}, \quad l = 1, \dots, L $$

        $$ d_l = 2^{l-1} \quad \text{(the default } (1, 2, 4, 8)\text{)} $$

        $$ R = 1 + 2(k-1)\sum_{l=1}^{L} d_l = 1 + 2(k-1)(2^L - 1) $$

        Each block $\mathcal{F}_{d_l}$ is a `TemporalBlock`: two causal
        convolutions of dilation $d_l$, each with ReLU and dropout, and a
        shortcut ($W^{(l)}_r$ the identity when the widths match, a
        $1 \times 1$ convolution otherwise). A causal convolution of kernel
        size $k$ and dilation $d$ reaches $(k-1)d$ steps back, a block two
        of them; offsets add up through the stack, so output $t$ reads
        inputs $t - R + 1, \dots, t$: the receptive field $R$ grows
        exponentially with the depth $L$ while the weights grow linearly.
        With doubling dilations every step of that window is read; other
        dilations can leave holes (`receptive_positions` lists exactly which
        steps are read). Nothing after $t$ is read, so right padding never
        reaches a real step; the mask also zeroes padded steps at every
        convolution's input, so left padding reads like the zeros before the
        sequence, and each real step gets its unpadded sequence's output.

        Stepping carries each convolution's last $(k-1)d$ inputs (`step`;
        `read` takes several steps from that state in one pass), so a new
        token costs $O(L k)$ products instead of a pass over the last $R$
        steps, and gives exactly the outputs of the whole-sequence call.

    Args:
        filters: Positive integer, the channels of every block.
        kernel_size: $k$, a positive integer. Default 3.
        dilations: $d_1, \dots, d_L$, one per block, positive integers.
            Default `(1, 2, 4, 8)`.
        dropout: Fraction in [0, 1) dropped after each convolution's ReLU
            while training. Default 0.
        weight_norm: Weight-normalise the convolutions (Bai et al. do).
            Default `True`.
        return_sequences: Return the output at every step (default `True`),
            or only at the last real step.
        kernel_initializer: Initializer of the kernels. Default `"glorot_uniform"`.
        bias_initializer: Initializer of the biases. Default `"zeros"`.
        seed: Random seed of the dropout masks.
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: `(batch, steps, features)`.
        mask: Optional `(batch, steps)` booleans, False on padding; passed on
            with `return_sequences`.
        training: Whether dropout is active.

    Returns:
        `(batch, steps, filters)`, or `(batch, filters)` without
        `return_sequences`. `step(x_t, state)` returns `(z_t, state)`,
        `z_t` of shape `(batch, filters)`.

    Example:

    ```python
    tcn = TemporalConvNet(filters=8, kernel_size=2, dilations=[1, 2, 4])
    x = np.random.normal(size=(2, 20, 3)).astype("float32")
    z = tcn(x)  # (2, 20, 8)
    tcn.receptive_field  # 15 = 1 + 2 * (2 - 1) * (1 + 2 + 4)
    state = tcn.initial_state(2)
    z_0, state = tcn.step(x[:, 0], state)  # z_0 == z[:, 0]
    ```
    """

    def __init__(
        self,
        filters,
        kernel_size=3,
        dilations=(1, 2, 4, 8),
        dropout=0.0,
        weight_norm=True,
        return_sequences=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.filters = check_positive_int("filters", filters)
        self.kernel_size = check_positive_int("kernel_size", kernel_size)
        self.dilations = check_dilations(dilations)
        self.dropout = check_dropout(dropout)
        self.weight_norm = bool(weight_norm)
        self.return_sequences = bool(return_sequences)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.seed = seed
        self.supports_masking = True
        self.input_spec = keras.layers.InputSpec(ndim=3)

    @property
    def receptive_field(self):
        r"""$R = 1 + 2(k-1)\sum_l d_l$: output $t$ reads inputs $t - R + 1, \dots, t$ at most."""
        return receptive_field(self.kernel_size, self.dilations)

    def receptive_positions(self, t):
        """The input positions (0-based, ascending) that output position ``t`` reads."""
        return receptive_positions(t, self.kernel_size, self.dilations)

    def build(self, input_shape):
        if input_shape[-1] is None:
            raise ValueError(f"TemporalConvNet needs a known number of features; received {tuple(input_shape)}.")
        self.blocks = []
        shape = tuple(input_shape)
        for l, d in enumerate(self.dilations, start=1):
            block = TemporalBlock(
                self.filters, self.kernel_size, dilation=d, dropout=self.dropout, weight_norm=self.weight_norm,
                kernel_initializer=self.kernel_initializer, bias_initializer=self.bias_initializer,
                seed=None if self.seed is None else self.seed + 2 * l, dtype=self.dtype_policy, name=f"block_{l}",
            )
            block.build(shape)
            self.blocks.append(block)
            shape = (*shape[:-1], self.filters)
        self.last_step = LastRealStep(name="last_step")

    def call(self, inputs, mask=None, training=False):
        z = inputs
        for block in self.blocks:
            z = block(z, mask=mask, training=training)  # (B, T, filters)
        return z if self.return_sequences else self.last_step(z, mask=mask)

    def compute_mask(self, inputs, mask=None):
        return mask if self.return_sequences else None

    def compute_output_shape(self, input_shape):
        if self.return_sequences:
            return (*input_shape[:-1], self.filters)
        return (input_shape[0], self.filters)

    def initial_state(self, batch_size):
        """The shift buffers of every convolution before the first step, zeros: a list of `2 L` tensors."""
        if not self.built:
            raise ValueError("TemporalConvNet.initial_state needs a built layer: call it on a sequence first.")
        return [buffer for block in self.blocks for buffer in block.initial_state(batch_size)]

    def step(self, inputs, state):
        """One new step, `inputs` `(batch, features)`: `(z_t, new state)`; dropout is off."""
        z, state = self.read(ops.expand_dims(inputs, 1), state)
        return z[:, 0], state

    def read(self, inputs, state, training=False):
        """Several new steps after the state, `inputs` `(batch, steps, features)`: `(z (batch, steps, filters),
        new state)`, as many `step` calls in one pass per convolution (with dropout while `training`); from
        `initial_state` it is the whole-sequence call with `return_sequences`."""
        if len(state) != 2 * len(self.blocks):
            raise ValueError(
                f"TemporalConvNet.step expects the state of initial_state (2 buffers per block, "
                f"{2 * len(self.blocks)} in all); received {len(state)}."
            )
        z, new_state = inputs, []
        for l, block in enumerate(self.blocks):
            z, buffers = block.read(z, state[2 * l : 2 * l + 2], training=training)
            new_state.extend(buffers)
        return z, new_state

    def get_config(self):
        return {
            **super().get_config(),
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "dilations": self.dilations,
            "dropout": self.dropout,
            "weight_norm": self.weight_norm,
            "return_sequences": self.return_sequences,
            "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
            "bias_initializer": keras.initializers.serialize(self.bias_initializer),
            "seed": self.seed,
        }
