r"""The diagonal linear state-space layer (S4D): a convolution kernel to train, a recurrence to step."""

import math

import keras
from keras import ops

from seqlab.layers.last_step import LastRealStep
from seqlab.layers.state_space import complex_pairs as cx
from seqlab.layers.state_space.arguments import (
    check_choice,
    check_dt_range,
    check_positive_int,
    check_sequence_shape,
)
from seqlab.layers.state_space.causal_convolution import causal_convolution
from seqlab.layers.state_space.initializers import log_uniform, over_modes
from seqlab.layers.state_space.masking import masked_inputs, real_steps

__all__ = ["DiagonalStateSpace"]

INITS = ("lin", "real")
MODES = ("convolution", "recurrence")


@keras.saving.register_keras_serializable(package="seqlab")
class DiagonalStateSpace(keras.layers.Layer):
    r"""Diagonal linear state-space model (S4D), one per channel, discretised by zero-order hold.

    Equations:
        $$ x_t = \bar{A} x_{t-1} + \bar{B} u_t, \quad y_t = \mathrm{Re}(C x_t) + D u_t $$

        $$ A = \mathrm{diag}(a_1, \dots, a_N), \quad
           a_n = -e^{\alpha_n} + i \omega_n $$

        $$ \bar{A} = \exp(\Delta A), \quad
           \bar{B} = (\Delta A)^{-1} \left(\exp(\Delta A) - I\right) \Delta B $$

        $$ y_t = \sum_{k=0}^{t} \bar{K}_k u_{t-k} + D u_t, \quad
           \bar{K}_k = \mathrm{Re}\left(C \bar{A}^k \bar{B}\right) $$

        Each of the $H$ input channels is its own single-input single-output
        system with state $x_t \in \mathbb{C}^N$ (S4D-Lin) or $\mathbb{R}^N$
        (S4D-Real), starting from $x_{-1} = 0$. $A$ is diagonal, so
        $\exp(\Delta A)$ is elementwise and $\bar{A}^k = \exp(k \Delta A)$:
        the kernel $\bar{K}$ is a Vandermonde product. Training runs the
        convolution (`mode="convolution"`: direct up to 256 steps, an FFT
        beyond them or for a length known only at run time); `step` runs the recurrence, and `mode="recurrence"` runs it
        over the whole sequence. Both compute the same $y_t$. Weights:
        `log_dt` ($\log \Delta$, one per channel), `log_A_real` ($\alpha$),
        `A_imag` ($\omega$, S4D-Lin only), `B`, `C_real` and `C_imag`
        ($C$; `C_imag` S4D-Lin only), `D`. S4D keeps only one of each
        conjugate pair of modes and takes $2 \mathrm{Re}$; here the 2 is part
        of $C$. The complex algebra is written out in real tensors.

        A mask (False on padding) zeroes $u_t$ at padded steps, and the
        recurrence keeps $x_t = x_{t-1}$ there: left padding reads like the
        zeros before the sequence, right padding never reaches a real step
        (the output is causal), and without `return_sequences` the output is
        the last real step's. The state returned under a mask is the last
        real step's.

    Args:
        state_size: $N$, the number of modes per channel. Default 16.
        init: `"lin"` (default, S4D-Lin: $a_n = -\tfrac12 + i \pi n$) or
            `"real"` (S4D-Real: $a_n = -(n + 1)$, a real state).
        dt_min, dt_max: $\Delta$ starts log-uniform in `[dt_min, dt_max]`.
            Defaults 0.001 and 0.1.
        mode: How `call` computes the sequence: `"convolution"` (default) or
            `"recurrence"` (the step, scanned).
        return_sequences: Return $y_t$ at every step (default `True`) or only
            the last.
        return_state: Also return the last state $x_{L-1}$.
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: $u$, shape `(batch, steps, channels)`.
        initial_state: Optional $x_{-1}$, a list like `initial_state(batch)`.
        mask: Optional `(batch, steps)` booleans, False on padding.

    Returns:
        $y$, `(batch, steps, channels)`, or `(batch, channels)` without
        `return_sequences`; with `return_state`, a list `[y, *state]`.
        `step(u_t, state)` gives `(y_t, new_state)` for one step;
        `states(u)` gives $x_t$ at every step, `(batch, steps, channels, N)`
        per part (`state_names`); `read(u, state)` gives `(y, new_state)`
        for several steps after a state (a prompt at once).

    Example:

    ```python
    ssm = DiagonalStateSpace(state_size=8)
    u = np.random.normal(size=(2, 16, 3)).astype("float32")
    y = ssm(u)  # (2, 16, 3), by the convolution kernel
    state = ssm.initial_state(2)
    y_0, state = ssm.step(u[:, 0], state)  # y_0 equals y[:, 0]
    ```
    """

    def __init__(
        self,
        state_size=16,
        init="lin",
        dt_min=0.001,
        dt_max=0.1,
        mode="convolution",
        return_sequences=True,
        return_state=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.state_size = check_positive_int("state_size", state_size)
        self.init = check_choice("init", init, INITS)
        self.dt_min, self.dt_max = check_dt_range(dt_min, dt_max)
        self.mode = check_choice("mode", mode, MODES)
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.input_spec = keras.layers.InputSpec(ndim=3)
        self.supports_masking = True
        self.last_step = LastRealStep(name="last_step")

    @property
    def is_complex(self):
        """S4D-Lin's complex state (two real parts), not S4D-Real's real one."""
        return self.init == "lin"

    @property
    def state_names(self):
        """The parts of the state $x_t$, in the order of `initial_state`."""
        return ("x_real", "x_imag") if self.is_complex else ("x",)

    def build(self, input_shape):
        channels = check_sequence_shape(self, input_shape)
        shape = (channels, self.state_size)
        self.log_dt = self.add_weight(
            shape=(channels,), name="log_dt", initializer=log_uniform(self.dt_min, self.dt_max)
        )
        if self.is_complex:  # S4D-Lin: a_n = -1/2 + iπn
            alpha, omega = over_modes(lambda n: ops.full_like(n, math.log(0.5))), over_modes(lambda n: math.pi * n)
            self.log_A_real = self.add_weight(shape=shape, name="log_A_real", initializer=alpha)
            self.A_imag = self.add_weight(shape=shape, name="A_imag", initializer=omega)
        else:  # S4D-Real: a_n = -(n + 1)
            alpha = over_modes(lambda n: ops.log(n + 1.0))
            self.log_A_real = self.add_weight(shape=shape, name="log_A_real", initializer=alpha)
        self.B = self.add_weight(shape=shape, name="B", initializer="ones")
        # S4D draws C complex normal, variance 1: 1/2 for each part.
        c_init = keras.initializers.RandomNormal(stddev=math.sqrt(0.5))
        self.C_real = self.add_weight(shape=shape, name="C_real", initializer=c_init)
        if self.is_complex:
            self.C_imag = self.add_weight(shape=shape, name="C_imag", initializer=c_init)
        self.D = self.add_weight(shape=(channels,), name="D", initializer="ones")

    # The continuous and discrete parameters, as complex pairs (re, im), im None when real.

    @property
    def A(self):
        """$A$'s diagonal, `(channels, N)` per part."""
        return -ops.exp(self.log_A_real), (self.A_imag if self.is_complex else None)

    @property
    def C(self):
        """$C$, `(channels, N)` per part."""
        return self.C_real, (self.C_imag if self.is_complex else None)

    def _dt_A(self):
        dt = ops.exp(self.log_dt)[:, None]  # (H, 1)
        return cx.map_parts(lambda part: part * dt, self.A)

    def discretised(self):
        r"""$(\bar{A}, \bar{B})$ by zero-order hold, each a pair `(re, im)` of `(channels, N)`."""
        dt_A = self._dt_A()
        A_bar = cx.exp(dt_A)
        # (ΔA)^{-1}(exp(ΔA) - I) ΔB = (exp(ΔA) - 1) / A · B for a diagonal A; expm1 keeps
        # its digits when ΔA is small.
        B_bar = cx.multiply(cx.divide(cx.expm1(dt_A), self.A), (self.B, None))
        return A_bar, B_bar

    def _powers(self, count):
        r"""$\bar{A}^k = \exp(k \Delta A)$ for k = 0..count-1, `(channels, N, count)` per part."""
        k = ops.arange(count, dtype=self.compute_dtype)
        return cx.exp(cx.map_parts(lambda part: part[..., None] * k, self._dt_A()))

    def kernel(self, steps):
        r"""$\bar{K}_k = \mathrm{Re}(C \bar{A}^k \bar{B})$ for k = 0..steps-1, `(channels, steps)`."""
        _, B_bar = self.discretised()
        return self._kernel(B_bar, self._powers(steps))

    def _kernel(self, B_bar, powers):
        C_B = cx.map_parts(lambda part: part[..., None], cx.multiply(self.C, B_bar))  # (H, N, 1)
        return ops.sum(cx.multiply(C_B, powers)[0], axis=1)  # Re, summed over the modes

    # The state: a list of real tensors (batch, channels, N), x_real and x_imag when complex.

    def initial_state(self, batch_size):
        """$x_{-1} = 0$, a list of `(batch, channels, N)` tensors (see `state_names`)."""
        shape = (batch_size, self.D.shape[0], self.state_size)
        return [ops.zeros(shape, dtype=self.compute_dtype) for _ in self.state_names]

    def _pair(self, state):
        return (state[0], state[1]) if self.is_complex else (state[0], None)

    def _advance(self, A_bar, B_bar, state, inputs):
        """One step of the recurrence: `(y_t, new_state)`."""
        u = (inputs[..., None], None)  # (B, H, 1)
        x = cx.add(cx.multiply(A_bar, self._pair(state)), cx.multiply(B_bar, u))  # (B, H, N)
        y = ops.sum(cx.multiply(self.C, x)[0], axis=-1) + self.D * inputs  # (B, H)
        return y, cx.parts(x)

    def step(self, inputs, state):
        r"""One step: $u_t$ `(batch, channels)` and $x_{t-1}$ to `(y_t, [x_t ...])`."""
        A_bar, B_bar = self.discretised()
        return self._advance(A_bar, B_bar, list(state), ops.convert_to_tensor(inputs, dtype=self.compute_dtype))

    def _scan(self, inputs, state, mask=None):
        """The recurrence over the sequence: `(y, x, last_state)`, y and x time-major; the state kept where the
        mask is False."""
        A_bar, B_bar = self.discretised()
        keep = real_steps(inputs, mask)

        # Keras's TensorFlow scan stacks outputs shaped like the carry, so y_t rides in it.
        def advance(carry, step):
            u_t, real = step
            y_t, new_state = self._advance(A_bar, B_bar, carry[1:], u_t)
            new_state = [ops.where(real[:, None, None] > 0, new, old) for new, old in zip(new_state, carry[1:])]
            return [y_t, *new_state], [y_t, *new_state]

        y_start = ops.zeros_like(inputs[:, 0])
        sequences = [ops.moveaxis(inputs, 1, 0), ops.moveaxis(keep, 1, 0)]
        (_, *last), (y, *x) = ops.scan(advance, [y_start, *state], sequences)
        return y, x, last

    def states(self, inputs, initial_state=None, mask=None):
        """$x_t$ at every step: a list (`state_names`) of `(batch, steps, channels, N)` tensors."""
        inputs = ops.convert_to_tensor(inputs, dtype=self.compute_dtype)
        if not self.built:
            self.build(inputs.shape)
        _, x, _ = self._scan(masked_inputs(inputs, mask), self._start(inputs, initial_state), mask)
        return [ops.moveaxis(part, 0, 1) for part in x]

    def read(self, inputs, state, training=False):
        """Several steps after `state`, `inputs` `(batch, steps, channels)`: `(y (batch, steps, channels),
        new_state)`, what as many `step` calls give, by the convolution kernel. `training` is taken as every
        stepping layer's `read` takes it; nothing here drops out."""
        inputs = ops.convert_to_tensor(inputs, dtype=self.compute_dtype)
        return self._convolve(inputs, list(state), with_last=True)

    def _convolve(self, inputs, state, with_last):
        """The whole sequence by the kernel, plus what the initial state adds: `(y, last_state)`."""
        steps = ops.shape(inputs)[1]
        _, B_bar = self.discretised()
        powers = self._powers(steps + 1)  # Ā^0 .. Ā^L
        head = cx.map_parts(lambda part: part[..., :-1], powers)  # Ā^k, k < L
        y = causal_convolution(inputs, self._kernel(B_bar, head)) + self.D * inputs
        x0 = None if state is None else self._pair(state)
        if x0 is not None:  # + Re(C Ā^{t+1} x_{-1})
            tail = cx.map_parts(lambda part: part[..., 1:], powers)  # Ā^{t+1}
            C_x0 = cx.map_parts(lambda part: part[..., None], cx.multiply(self.C, x0))  # (B, H, N, 1)
            y = y + ops.transpose(ops.sum(cx.multiply(C_x0, tail)[0], axis=2), (0, 2, 1))
        if not with_last:
            return y, None
        # x_{L-1} = Σ_k Ā^k B̄ u_{L-1-k} + Ā^L x_{-1}
        newest_first = ops.flip(inputs, axis=1)  # (B, L, H): u_{L-1-k} at k
        drive = cx.multiply(head, cx.map_parts(lambda part: part[..., None], B_bar))  # Ā^k B̄, (H, N, L)
        last = cx.map_parts(lambda part: ops.einsum("hnk,bkh->bhn", part, newest_first), drive)
        if x0 is not None:
            last = cx.add(last, cx.multiply(cx.map_parts(lambda part: part[..., -1], powers), x0))
        return y, cx.parts(last)

    def call(self, inputs, initial_state=None, mask=None):
        inputs = masked_inputs(inputs, mask)
        if self.mode == "recurrence":
            y, _, last = self._scan(inputs, self._start(inputs, initial_state), mask)
            y = ops.moveaxis(y, 0, 1)
        else:
            y, last = self._convolve(inputs, initial_state, with_last=self.return_state and mask is None)
            if self.return_state and mask is not None:  # the kernel cannot keep the state at padded steps
                _, _, last = self._scan(inputs, self._start(inputs, initial_state), mask)
        if not self.return_sequences:
            y = self.last_step(y, mask=mask)
        return [y, *last] if self.return_state else y

    def _start(self, inputs, initial_state):
        return self.initial_state(ops.shape(inputs)[0]) if initial_state is None else list(initial_state)

    def compute_mask(self, inputs, mask=None):
        output_mask = mask if self.return_sequences else None
        return [output_mask, *[None for _ in self.state_names]] if self.return_state else output_mask

    def compute_output_shape(self, input_shape):
        batch, steps, channels = input_shape
        output = (batch, steps, channels) if self.return_sequences else (batch, channels)
        if not self.return_state:
            return output
        return [output, *[(batch, channels, self.state_size) for _ in self.state_names]]

    def get_config(self):
        config = {
            "state_size": self.state_size,
            "init": self.init,
            "dt_min": self.dt_min,
            "dt_max": self.dt_max,
            "mode": self.mode,
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
        }
        return {**super().get_config(), **config}
