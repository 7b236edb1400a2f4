r"""The selective state-space layer (Mamba's S6): $\Delta$, $B$ and $C$ read from the input at every step."""

import keras
from keras import ops

from seqlab.layers.state_space.arguments import check_dt_range, check_positive_int, check_sequence_shape
from seqlab.layers.last_step import LastRealStep
from seqlab.layers.state_space.initializers import inverse_softplus_of, log_uniform, over_modes
from seqlab.layers.state_space.masking import masked_inputs, real_steps

__all__ = ["SelectiveStateSpace"]


@keras.saving.register_keras_serializable(package="seqlab")
class SelectiveStateSpace(keras.layers.Layer):
    r"""Selective state-space model (Mamba's S6): a diagonal one whose $\Delta_t$, $B_t$, $C_t$ depend on $u_t$.

    Equations:
        $$ \Delta_t = \mathrm{softplus}(u_t W_\Delta + b_\Delta), \quad
           B_t = u_t W_B, \quad C_t = u_t W_C $$

        $$ \bar{A}_t = \exp(\Delta_t A), \quad \bar{B}_t = \Delta_t B_t $$

        $$ x_t = \bar{A}_t \odot x_{t-1} + \bar{B}_t u_t, \quad y_t = C_t x_t + D u_t $$

        $$ A = -\mathrm{diag}(e^{\alpha_1}, \dots, e^{\alpha_N}) $$

        Each channel $h$ of $u_t \in \mathbb{R}^H$ has its own step
        $\Delta_{t,h} > 0$, its own real diagonal $A_h$ (S4D-Real start,
        $a_n = -(n + 1)$) and a state $x_{t,h} \in \mathbb{R}^N$ that
        starts at $x_{-1} = 0$; $B_t, C_t \in \mathbb{R}^N$ are shared by
        the channels. $\bar{A}_t$ is the zero-order hold of $A$;
        $\bar{B}_t = \Delta_t B_t$ is Mamba's simpler Euler step in place of
        the hold's $(\Delta_t A)^{-1}(\exp(\Delta_t A) - I) \Delta_t B_t$ (the
        two agree to first order in $\Delta_t$). With $\Delta$, $B$, $C$
        varying in time there is no convolution kernel: the whole sequence
        runs the same step as `step`, in a scan. Weights: `dt_kernel`
        ($W_\Delta$; with `dt_rank` $r$ the product of `dt_down`, $H \times r$,
        and `dt_up`, $r \times H$, as in Mamba), `dt_bias` ($b_\Delta$),
        `B_kernel` ($W_B$), `C_kernel` ($W_C$), `A_log` ($\alpha$), `D`.

        A mask (False on padding) zeroes $u_t$ at padded steps and keeps
        $x_t = x_{t-1}$ there, so padding on either side leaves the real
        steps' outputs as without it; without `return_sequences` the output
        is the last real step's.

    Args:
        state_size: $N$, the state size per channel. Default 16.
        dt_rank: Rank of $W_\Delta$: `None` (default) for a full
            $H \times H$ matrix, or a positive integer $r$.
        dt_min, dt_max: $\Delta$ starts log-uniform in `[dt_min, dt_max]`
            (through $b_\Delta$). Defaults 0.001 and 0.1.
        return_sequences: Return $y_t$ at every step (default `True`) or only
            the last.
        return_state: Also return the last state $x_{L-1}$.
        kernel_initializer: Initializer of $W_\Delta$, $W_B$ and $W_C$.
            Default `"glorot_uniform"`.
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: $u$, shape `(batch, steps, channels)`.
        initial_state: Optional $x_{-1}$, a list like `initial_state(batch)`.
        mask: Optional `(batch, steps)` booleans, False on padding.

    Returns:
        $y$, `(batch, steps, channels)`, or `(batch, channels)` without
        `return_sequences`; with `return_state`, a list `[y, x_{L-1}]`.
        `step(u_t, state)` gives `(y_t, new_state)` for one step;
        `states(u)` gives $x_t$ at every step, `(batch, steps, channels, N)`;
        `read(u, state)` gives `(y, new_state)` for several steps after a state.

    Example:

    ```python
    s6 = SelectiveStateSpace(state_size=8)
    u = np.random.normal(size=(2, 16, 3)).astype("float32")
    y = s6(u)  # (2, 16, 3)
    y_0, state = s6.step(u[:, 0], s6.initial_state(2))  # y_0 equals y[:, 0]
    ```
    """

    state_names = ("x",)

    def __init__(
        self,
        state_size=16,
        dt_rank=None,
        dt_min=0.001,
        dt_max=0.1,
        return_sequences=True,
        return_state=False,
        kernel_initializer="glorot_uniform",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.state_size = check_positive_int("state_size", state_size)
        self.dt_rank = None if dt_rank is None else check_positive_int("dt_rank", dt_rank)
        self.dt_min, self.dt_max = check_dt_range(dt_min, dt_max)
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.input_spec = keras.layers.InputSpec(ndim=3)
        self.supports_masking = True
        self.last_step = LastRealStep(name="last_step")

    def build(self, input_shape):
        channels = check_sequence_shape(self, input_shape)
        shape = (channels, self.state_size)

        def kernel(name, kernel_shape):
            return self.add_weight(shape=kernel_shape, name=name, initializer=self.kernel_initializer)

        if self.dt_rank is None:
            self.dt_kernel = kernel("dt_kernel", (channels, channels))
        else:
            self.dt_down = kernel("dt_down", (channels, self.dt_rank))
            self.dt_up = kernel("dt_up", (self.dt_rank, channels))
        self.dt_bias = self.add_weight(
            shape=(channels,), name="dt_bias", initializer=inverse_softplus_of(log_uniform(self.dt_min, self.dt_max))
        )
        self.B_kernel = kernel("B_kernel", (channels, self.state_size))
        self.C_kernel = kernel("C_kernel", (channels, self.state_size))
        # S4D-Real: a_n = -(n + 1) in every channel.
        self.A_log = self.add_weight(shape=shape, name="A_log", initializer=over_modes(lambda n: ops.log(n + 1.0)))
        self.D = self.add_weight(shape=(channels,), name="D", initializer="ones")

    @property
    def A(self):
        """$A$'s diagonal, `(channels, N)`."""
        return -ops.exp(self.A_log)

    @property
    def W_delta(self):
        r"""$W_\Delta$, `(channels, channels)`, whatever its rank."""
        return self.dt_kernel if self.dt_rank is None else ops.matmul(self.dt_down, self.dt_up)

    def selection(self, inputs):
        r"""$(\Delta_t, B_t, C_t)$ for inputs `(..., channels)`: shapes `(..., channels)`, `(..., N)`, `(..., N)`."""
        delta = ops.softplus(ops.matmul(inputs, self.W_delta) + self.dt_bias)
        return delta, ops.matmul(inputs, self.B_kernel), ops.matmul(inputs, self.C_kernel)

    def initial_state(self, batch_size):
        """$x_{-1} = 0$: a list of one `(batch, channels, N)` tensor."""
        return [ops.zeros((batch_size, self.D.shape[0], self.state_size), dtype=self.compute_dtype)]

    def _advance(self, x, inputs, delta, B, C):
        """One step from $x_{t-1}$ `(batch, channels, N)`, given the step's selection: `(y_t, x_t)`."""
        A_bar = ops.exp(delta[..., None] * self.A)  # (B, H, N)
        x = A_bar * x + (delta * inputs)[..., None] * B[:, None, :]  # B̄_t u_t = Δ_t u_t B_t
        y = ops.einsum("bhn,bn->bh", x, C) + self.D * inputs
        return y, x

    def step(self, inputs, state):
        r"""One step: $u_t$ `(batch, channels)` and `[x_{t-1}]` to `(y_t, [x_t])`."""
        inputs = ops.convert_to_tensor(inputs, dtype=self.compute_dtype)
        y, x = self._advance(state[0], inputs, *self.selection(inputs))
        return y, [x]

    def _scan(self, inputs, state, mask=None):
        """The recurrence over the sequence: `(y, x, x_last)`, y and x time-major; the state kept where the mask
        is False."""
        # The projections at once, the rest of the step in the loop: precomputing Ā_t and B̄_t u_t
        # for the whole sequence instead (a two-op loop) trained 1.4x slower on this CPU (memory).
        delta, B, C = self.selection(inputs)

        # Keras's TensorFlow scan stacks outputs shaped like the carry, so y_t rides in it.
        def advance(carry, step_inputs):
            *step_inputs, real = step_inputs
            y, x = self._advance(carry[1], *step_inputs)
            x = ops.where(real[:, None, None] > 0, x, carry[1])
            return [y, x], [y, x]

        sequences = [ops.moveaxis(tensor, 1, 0) for tensor in (inputs, delta, B, C, real_steps(inputs, mask))]
        (_, last), (y, x) = ops.scan(advance, [ops.zeros_like(inputs[:, 0]), state[0]], sequences)
        return y, x, last

    def _start(self, inputs, initial_state):
        return self.initial_state(ops.shape(inputs)[0]) if initial_state is None else list(initial_state)

    def states(self, inputs, initial_state=None, mask=None):
        """$x_t$ at every step: a list of one `(batch, steps, channels, N)` tensor."""
        inputs = ops.convert_to_tensor(inputs, dtype=self.compute_dtype)
        if not self.built:
            self.build(inputs.shape)
        _, x, _ = self._scan(masked_inputs(inputs, mask), self._start(inputs, initial_state), mask)
        return [ops.moveaxis(x, 0, 1)]

    def read(self, inputs, state, training=False):
        """Several steps after `state`, `inputs` `(batch, steps, channels)`: `(y (batch, steps, channels),
        [x])`, what as many `step` calls give, in one scan. `training` is taken as every
        stepping layer's `read` takes it; nothing here drops out."""
        inputs = ops.convert_to_tensor(inputs, dtype=self.compute_dtype)
        y, _, last = self._scan(inputs, list(state))
        return ops.moveaxis(y, 0, 1), [last]

    def call(self, inputs, initial_state=None, mask=None):
        inputs = masked_inputs(inputs, mask)
        y, _, last = self._scan(inputs, self._start(inputs, initial_state), mask)
        y = ops.moveaxis(y, 0, 1)
        if not self.return_sequences:
            y = self.last_step(y, mask=mask)
        return [y, last] if self.return_state else y

    def compute_mask(self, inputs, mask=None):
        output_mask = mask if self.return_sequences else None
        return [output_mask, None] if self.return_state else output_mask

    def compute_output_shape(self, input_shape):
        batch, steps, channels = input_shape
        output = (batch, steps, channels) if self.return_sequences else (batch, channels)
        return [output, (batch, channels, self.state_size)] if self.return_state else output

    def get_config(self):
        config = {
            "state_size": self.state_size,
            "dt_rank": self.dt_rank,
            "dt_min": self.dt_min,
            "dt_max": self.dt_max,
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
        }
        return {**super().get_config(), **config}
