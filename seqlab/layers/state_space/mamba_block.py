r"""Mamba's block: the selective state-space layer between a short causal convolution and a SiLU gate."""

import keras
from keras import ops

from seqlab.layers.state_space.arguments import check_positive_int, check_sequence_shape
from seqlab.layers.state_space.masking import masked_inputs
from seqlab.layers.state_space.selective import SelectiveStateSpace

__all__ = ["MambaBlock"]


@keras.saving.register_keras_serializable(package="seqlab")
class MambaBlock(keras.layers.Layer):
    r"""Mamba's residual block: normalise, project up, causal convolution, selective scan, gate, project down.

    Equations:
        $$ (v_t, z_t) = \mathrm{RMSNorm}(u_t) \, W_{\mathrm{in}} $$

        $$ c_t = \mathrm{SiLU}\left(\sum_{j=0}^{w-1} k_j \odot v_{t-j} + b_k\right) $$

        $$ x_t = \bar{A}_t \odot x_{t-1} + \bar{B}_t c_t, \quad s_t = C_t x_t + D c_t $$

        $$ y_t = u_t + \left(s_t \odot \mathrm{SiLU}(z_t)\right) W_{\mathrm{out}} $$

        $u_t \in \mathbb{R}^H$ is widened to $E = $ `expand` $\cdot H$
        channels twice: $v_t$ goes through a depthwise causal convolution of
        width $w$ (`conv_width`, $v_{t-j} = 0$ before the start) and the
        selective state-space layer (`SelectiveStateSpace`, whose
        $\Delta_t, B_t, C_t$ are read from $c_t$), $z_t$ gates its output.
        The block is pre-normalised and residual, as Mamba stacks it, so
        blocks stack like Transformer blocks. A mask (False on padding)
        zeroes $u_t$ at padded steps (so $v_t = 0$ there, as before the
        start) and the selective layer keeps its state across them. Sub-layers: `norm`
        (`RMSNormalization`), `in_projection` ($W_{\mathrm{in}}$, no bias),
        `ssm`, `out_projection` ($W_{\mathrm{out}}$, no bias); weights
        `conv_kernel` ($k$, `(w, E)`) and `conv_bias` ($b_k$).

    Args:
        expand: $E / H$, a positive integer. Default 2.
        state_size: $N$ of the selective layer. Default 16.
        conv_width: $w$, the convolution's width in steps. Default 4.
        dt_rank: Rank of the selective layer's $W_\Delta$ (`None`: full).
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: $u$, shape `(batch, steps, channels)`.
        mask: Optional `(batch, steps)` booleans, False on padding.

    Returns:
        $y$, `(batch, steps, channels)`. `step(u_t, state)` gives
        `(y_t, new_state)` with the state `[the last w - 1 v_t, x_t]`
        (`state_names`); `states(u)` gives the selective layer's $x_t$ at
        every step, `(batch, steps, E, N)`; `read(u, state)` gives
        `(y, new_state)` for several steps after a state.

    Example:

    ```python
    block = MambaBlock(expand=2, state_size=4)
    u = np.random.normal(size=(2, 10, 3)).astype("float32")
    y = block(u)  # (2, 10, 3)
    y_0, state = block.step(u[:, 0], block.initial_state(2))  # y_0 equals y[:, 0]
    ```
    """

    state_names = ("conv_window", "x")

    def __init__(self, expand=2, state_size=16, conv_width=4, dt_rank=None, **kwargs):
        super().__init__(**kwargs)
        self.expand = check_positive_int("expand", expand)
        self.state_size = check_positive_int("state_size", state_size)
        self.conv_width = check_positive_int("conv_width", conv_width)
        self.dt_rank = None if dt_rank is None else check_positive_int("dt_rank", dt_rank)
        self.input_spec = keras.layers.InputSpec(ndim=3)
        self.supports_masking = True

    def build(self, input_shape):
        channels = check_sequence_shape(self, input_shape)
        inner = self.expand * channels  # E
        self.norm = keras.layers.RMSNormalization(name="norm", dtype=self.dtype_policy)
        self.norm.build(input_shape)
        self.in_projection = keras.layers.Dense(
            2 * inner, use_bias=False, name="in_projection", dtype=self.dtype_policy
        )
        self.in_projection.build(input_shape)
        self.conv_kernel = self.add_weight(
            shape=(self.conv_width, inner), name="conv_kernel", initializer="glorot_uniform"
        )
        self.conv_bias = self.add_weight(shape=(inner,), name="conv_bias", initializer="zeros")
        self.ssm = SelectiveStateSpace(self.state_size, dt_rank=self.dt_rank, name="ssm", dtype=self.dtype_policy)
        self.ssm.build((input_shape[0], input_shape[1], inner))
        self.out_projection = keras.layers.Dense(
            channels, use_bias=False, name="out_projection", dtype=self.dtype_policy
        )
        self.out_projection.build((input_shape[0], input_shape[1], inner))

    def _project(self, inputs):
        """$(v, z)$ from $u$, for a sequence or one step."""
        v, z = ops.split(self.in_projection(self.norm(inputs)), 2, axis=-1)
        return v, z

    def _convolve(self, window):
        r"""$c_t$ from a window `(..., w, E)` of $v_{t-w+1}, \dots, v_t$, oldest first."""
        return ops.silu(ops.einsum("...je,je->...e", window, ops.flip(self.conv_kernel, axis=0)) + self.conv_bias)

    def _conv_input(self, inputs):
        """$v$ and $z$ of a sequence, and $c$ at every step."""
        v, z = self._project(inputs)
        padded = ops.pad(v, ((0, 0), (self.conv_width - 1, 0), (0, 0)))  # v_{t-j} = 0 before the start
        return self._convolve_window(padded, ops.shape(inputs)[1]), z

    def _convolve_window(self, window, steps):
        """$c$ for the last `steps` steps of a window `(batch, w - 1 + steps, E)` of $v$, oldest first."""
        # k_j v_{t-j}: the copy of v shifted by j steps, for j < w.
        start = self.conv_width - 1
        shifted = [window[:, start - j : start - j + steps] for j in range(self.conv_width)]
        return ops.silu(sum(self.conv_kernel[j] * shifted[j] for j in range(self.conv_width)) + self.conv_bias)

    def call(self, inputs, mask=None):
        c, z = self._conv_input(masked_inputs(inputs, mask))
        return inputs + self.out_projection(self.ssm(c, mask=mask) * ops.silu(z))

    def compute_mask(self, inputs, mask=None):
        return mask

    def initial_state(self, batch_size):
        """Zeros: `[the last w - 1 v_t (batch, w - 1, E), x (batch, E, N)]`."""
        inner = self.conv_kernel.shape[1]
        window = ops.zeros((batch_size, self.conv_width - 1, inner), dtype=self.compute_dtype)
        return [window, *self.ssm.initial_state(batch_size)]

    def step(self, inputs, state):
        r"""One step: $u_t$ `(batch, channels)` and the state to `(y_t, new_state)`."""
        v, z = self._project(inputs)
        window = ops.concatenate([state[0], v[:, None, :]], axis=1)  # (B, w, E), oldest first
        s, [x] = self.ssm.step(self._convolve(window), state[1:])
        return inputs + self.out_projection(s * ops.silu(z)), [window[:, 1:], x]

    def read(self, inputs, state, training=False):
        """Several steps after `state`, `inputs` `(batch, steps, channels)`: `(y (batch, steps, channels),
        new_state)`, what as many `step` calls give, in one convolution and one scan. `training` is taken as every
        stepping layer's `read` takes it; nothing here drops out."""
        inputs = ops.convert_to_tensor(inputs, dtype=self.compute_dtype)
        v, z = self._project(inputs)
        window = ops.concatenate([state[0], v], axis=1)  # (B, w - 1 + steps, E): the state stands for the zeros
        s, [x] = self.ssm.read(self._convolve_window(window, ops.shape(inputs)[1]), state[1:])
        kept = ops.shape(window)[1] - (self.conv_width - 1)
        return inputs + self.out_projection(s * ops.silu(z)), [window[:, kept:], x]

    def states(self, inputs, mask=None):
        """The selective layer's $x_t$ at every step: a list of one `(batch, steps, E, N)` tensor."""
        inputs = ops.convert_to_tensor(inputs, dtype=self.compute_dtype)
        if not self.built:
            self.build(inputs.shape)
        c, _ = self._conv_input(masked_inputs(inputs, mask))
        return self.ssm.states(c, mask=mask)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        config = {
            "expand": self.expand,
            "state_size": self.state_size,
            "conv_width": self.conv_width,
            "dt_rank": self.dt_rank,
        }
        return {**super().get_config(), **config}
