r"""Echo state network: a random, fixed reservoir and a readout fit by ridge regression."""

import numbers

import keras
import numpy as np
from keras import ops
from scipy.sparse import csr_matrix
from scipy.sparse.linalg import ArpackNoConvergence, eigs

from seqlab.layers.recurrent.arguments import check_step_rank, check_units
from seqlab.layers.recurrent.sequence import SequenceLayer


ARPACK_MIN_UNITS = 64  # below, a dense eigendecomposition is as fast and never fails to converge


def _check_in(name, value, low, high, low_open=True):
    """Checks low < value <= high (or low <= value with low_open=False)."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    ok = ok and (low < value if low_open else low <= value) and value <= high
    if not ok:
        interval = f"{'(' if low_open else '['}{low}, {high}]"
        raise ValueError(f"Argument `{name}` must be a number in {interval}. Received: {name}={value!r}")
    return float(value)


def spectral_radius_of(B):
    """max |eigenvalue| of a square float64 matrix B.

    ARPACK's largest-magnitude eigenvalue of the sparse B (Arnoldi iterations of
    B v, to machine precision) for large reservoirs: for 1000 units it takes about
    0.2 s where a full dense eigendecomposition takes 1-5 s on two cores, most of
    an ESN's fit. Small or non-converging (e.g. nilpotent) matrices: the dense one.
    """
    if len(B) > ARPACK_MIN_UNITS:
        v0 = np.full(len(B), len(B) ** -0.5)  # a fixed start: the same radius on every run
        try:
            eigenvalue = eigs(csr_matrix(B), k=1, which="LM", v0=v0, return_eigenvectors=False)
            return float(np.abs(eigenvalue[0]))
        except ArpackNoConvergence:
            pass
    return float(np.max(np.abs(np.linalg.eigvals(B))))


def reservoir_matrix(units, spectral_radius, connectivity, rng, attempts=100):
    """Sparse random B (units, units) rescaled so that max |eigenvalue| = spectral_radius.

    A small, sparse draw can be nilpotent (all eigenvalues 0, nothing to rescale):
    it is drawn again, up to `attempts` times.
    """
    for _ in range(attempts):
        B = rng.uniform(-1.0, 1.0, (units, units)) * (rng.random((units, units)) < connectivity)
        radius = spectral_radius_of(B)  # float64: the rescaling must be exact
        if radius > 1e-8:
            return B * (spectral_radius / radius)
    raise ValueError(
        f"A random reservoir of {units} units with connectivity={connectivity} has spectral "
        "radius 0 in every draw; raise `connectivity` or `units`."
    )


@keras.saving.register_keras_serializable(package="seqlab")
class ESNCell(keras.layers.Layer):
    r"""One step of an echo state network's leaky reservoir.

    Equations:
        $$ \tilde{z}_t = \tanh\left(B z_{t-1} + V x_t + b\right) $$

        $$ z_t = (1 - a)\, z_{t-1} + a\, \tilde{z}_t $$

        $$ \hat{y}_t = W z_t \quad \text{(ESNReadout, fit by ridge regression)} $$

        As the notes put it, $B$ and $V$ are initialised randomly and only
        $W$ is trained, by linear regression. $B$ is sparse (a fraction
        `connectivity` of nonzero entries, uniform in [-1, 1]; redrawn if
        nilpotent) and rescaled so that its spectral radius
        $\max_k |\lambda_k(B)|$ equals `spectral_radius`; $V$ and $b$ are
        uniform in [-1, 1] times
        `input_scaling` and `bias_scaling`; $a$ is the leak rate ($a = 1$:
        the notes' Elman update). The state $z_t$ is returned as $h_t$.
        Weights are Keras-style `kernel` $=V^\top$, `recurrent_kernel`
        $=B^\top$ and `bias`, all non-trainable.

    Args:
        units: Positive integer, the reservoir size.
        spectral_radius: Spectral radius of $B$, > 0. Default 1.1. Near 1 the
            reservoir remembers longest; well above 1 it turns chaotic and
            loses the echo state property (its state no longer forgets the
            initial state). Slightly above 1 still works because the input
            drive saturates tanh (see the sweep in the benchmark).
        leak_rate: $a$ in (0, 1]; small values give a slow, smooth
            reservoir. Default 0.6.
        input_scaling: Scale of $V$, > 0. Default 1.
        bias_scaling: Scale of $b$, >= 0 (0: no bias). Default 0.2.
        connectivity: Fraction of nonzero entries of $B$, in (0, 1].
            Default 0.1.
        seed: Seed of the reservoir; `None` draws one from NumPy's global
            generator (seeded by `keras.utils.set_random_seed`).

    Call arguments:
        inputs: Tensor of shape `(batch, features)`, the input $x_t$.
        states: List with one `(batch, units)` tensor, $z_{t-1}$.

    Returns:
        `(h, [h])` with $h = z_t$. `step` also returns the internals
        `{"h_tilde", "h"}` ($\tilde{z}_t$ and $z_t$).

    Example:

    ```python
    cell = ESNCell(100, spectral_radius=0.9, seed=0)
    states = keras.layers.RNN(cell, return_sequences=True)(np.zeros((1, 50, 1)))  # (1, 50, 100)
    ```
    """

    internal_names = ("h_tilde", "h")

    def __init__(
        self,
        units,
        spectral_radius=1.1,
        leak_rate=0.6,
        input_scaling=1.0,
        bias_scaling=0.2,
        connectivity=0.1,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.units = check_units(units)
        self.spectral_radius = _check_in("spectral_radius", spectral_radius, 0.0, float("inf"))
        self.leak_rate = _check_in("leak_rate", leak_rate, 0.0, 1.0)
        self.input_scaling = _check_in("input_scaling", input_scaling, 0.0, float("inf"))
        self.bias_scaling = _check_in("bias_scaling", bias_scaling, 0.0, float("inf"), low_open=False)
        self.connectivity = _check_in("connectivity", connectivity, 0.0, 1.0)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
            raise ValueError(f"Argument `seed` must be an integer or None. Received: seed={seed!r}")
        self.seed = None if seed is None else int(seed)
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape):
        check_step_rank(self, input_shape)
        seed = self.seed if self.seed is not None else int(np.random.randint(2**31 - 1))
        rng = np.random.default_rng(seed)
        features = input_shape[-1]
        values = {
            "kernel": self.input_scaling * rng.uniform(-1.0, 1.0, (features, self.units)),  # V^T
            "recurrent_kernel": reservoir_matrix(self.units, self.spectral_radius, self.connectivity, rng).T,
            "bias": self.bias_scaling * rng.uniform(-1.0, 1.0, (self.units,)),
        }
        for name, value in values.items():
            # An initializer, not an assign: build may run inside a traced function (predict).
            weight = self.add_weight(
                shape=value.shape, name=name, initializer=keras.initializers.Constant(value), trainable=False
            )
            setattr(self, name, weight)

    @property
    def V(self):
        """The notes' input matrix V, shape (units, features): `kernel` transposed."""
        return ops.transpose(self.kernel)

    @property
    def B(self):
        """The notes' reservoir matrix B, shape (units, units): `recurrent_kernel` transposed."""
        return ops.transpose(self.recurrent_kernel)

    @property
    def b(self):
        """The reservoir bias b, shape (units,)."""
        return self.bias

    def step(self, inputs, states, training=False):
        """One time step: returns `(output, new_states, internals)`."""
        z_prev = states[0] if isinstance(states, (list, tuple)) else states
        inputs = ops.cast(inputs, self.compute_dtype)  # e.g. NumPy float64 from a trace loop
        pre = ops.matmul(inputs, self.kernel) + ops.matmul(z_prev, self.recurrent_kernel) + self.bias
        z_tilde = ops.tanh(pre)
        z = (1.0 - self.leak_rate) * z_prev + self.leak_rate * z_tilde
        return z, [z], {"h_tilde": z_tilde, "h": z}

    def call(self, inputs, states, training=False):
        output, new_states, _ = self.step(inputs, states, training=training)
        return output, new_states

    def get_initial_state(self, batch_size=None):
        return [ops.zeros((batch_size, self.units), dtype=self.compute_dtype)]

    def get_config(self):
        config = {
            "units": self.units,
            "spectral_radius": self.spectral_radius,
            "leak_rate": self.leak_rate,
            "input_scaling": self.input_scaling,
            "bias_scaling": self.bias_scaling,
            "connectivity": self.connectivity,
            "seed": self.seed,
        }
        return {**super().get_config(), **config}


@keras.saving.register_keras_serializable(package="seqlab")
class ESN(SequenceLayer):
    r"""Echo state network reservoir over a whole sequence (returns all states by default).

    Equations:
        $$ z_t = (1 - a)\, z_{t-1} + a \tanh\left(B z_{t-1} + V x_t + b\right), \quad z_0 = 0 $$

        $$ \hat{y}_t = W z_t $$

        $B$ and $V$ are random and fixed (non-trainable, see `ESNCell`); only
        the readout $W$ is trained, in closed form by `ESNReadout.fit` /
        `ridge_fit` on the states $z_t$ after a washout (for long sequences,
        `reservoir_states(esn, u)` computes them in one loop compiled by XLA).
        `free_run` feeds the prediction $\hat{y}_t$ back as the next input
        (closed loop). With 1000 units, the defaults and an
        `ESNReadout(ridge=1e-8, washout=100)` trained on 3,000 steps of
        Mackey-Glass (tau = 17) free-run 84 steps with an NRMSE of about 5e-5
        (target 2e-4; see `bench/esn_mackey_glass.py`).

    Args:
        units: Positive integer, the reservoir size.
        spectral_radius: Spectral radius of $B$, > 0. Default 1.1.
        leak_rate: Leak rate $a$ in (0, 1]. Default 0.6.
        input_scaling: Scale of $V$, > 0. Default 1.
        bias_scaling: Scale of $b$, >= 0. Default 0.2.
        connectivity: Fraction of nonzero entries of $B$, in (0, 1].
            Default 0.1.
        seed: Seed of the reservoir (`None`: from NumPy's global generator).
        return_sequences: Return all states $z_1..z_T$ (default `True`, what
            a readout is fit on) or only $z_T$.
        return_state: Also return the last state.
        go_backwards: Process the sequence backwards (used by `Bidirectional`).
        stateful: Carry the last state of a batch into the next batch.
        unroll: Unroll the time loop (short sequences only).
        zero_output_for_mask: Output zeros at masked steps.
        **kwargs: Base layer arguments (`name`, `dtype`, ...). Use
            `dtype="float64"` for long closed-loop predictions.

    Call arguments:
        sequences: Tensor of shape `(batch, time, features)`.
        initial_state: Optional list with one `(batch, units)` tensor.
        mask: Optional boolean tensor `(batch, time)`; `False` skips a step.

    Returns:
        `(batch, time, units)` (or `(batch, units)` without
        `return_sequences`); with `return_state`, a list `[output, z_T]`.

    Example:

    ```python
    esn = ESN(200, seed=0)
    u = np.sin(np.arange(301) / 5.0)[None, :, None]  # (1, 301, 1)
    readout = ESNReadout(1, ridge=1e-8, washout=50).fit(esn(u[:, :-1]), u[:, 1:])
    future = free_run(esn, readout, u, steps=20)  # (1, 20, 1): u_301 .. u_320
    ```
    """

    def __init__(
        self,
        units,
        spectral_radius=1.1,
        leak_rate=0.6,
        input_scaling=1.0,
        bias_scaling=0.2,
        connectivity=0.1,
        seed=None,
        return_sequences=True,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        **kwargs,
    ):
        cell = ESNCell(
            units,
            spectral_radius=spectral_radius,
            leak_rate=leak_rate,
            input_scaling=input_scaling,
            bias_scaling=bias_scaling,
            connectivity=connectivity,
            seed=seed,
            dtype=kwargs.get("dtype"),
            name="esn_cell",
        )  # not `cell_options`: a reservoir is fixed, so there are no weight options to hand over
        super().__init__(
            cell, return_sequences=return_sequences, return_state=return_state, go_backwards=go_backwards,
            stateful=stateful, unroll=unroll, zero_output_for_mask=zero_output_for_mask, **kwargs,
        )


def ridge_fit(states, targets, ridge=1e-8, washout=0, use_bias=True):
    r"""Closed-form ridge regression of the readout: $W = (Z^\top Z + \lambda I)^{-1} Z^\top Y$.

    Args:
        states: Reservoir states $z_t$, `(time, units)` or `(batch, time, units)`.
        targets: Targets $y_t$, `(time, outputs)` or `(batch, time, outputs)`.
        ridge: $\lambda \ge 0$, the penalty on $W$ (not on the bias).
        washout: Number of first steps of each sequence to drop (the
            reservoir still remembers its arbitrary initial state there).
        use_bias: Also fit a bias (a constant input 1).

    Returns:
        `(W, b)` as float64 NumPy arrays of shapes `(units, outputs)` (the
        Keras `kernel` layout: the notes' $W$ transposed) and `(outputs,)`
        (`b` is zeros without `use_bias`).
    """
    # float64: the normal equations square the condition number of Z, and with
    # a small ridge a float32 Gram matrix would lose every significant digit.
    Z = np.asarray(ops.convert_to_numpy(states), dtype=np.float64)
    Y = np.asarray(ops.convert_to_numpy(targets), dtype=np.float64)
    if Z.ndim != Y.ndim or Z.ndim not in (2, 3) or Z.shape[:-1] != Y.shape[:-1]:
        raise ValueError(
            "`states` and `targets` must both be (time, n) or (batch, time, n) with the same "
            f"leading dimensions. Received: states.shape={Z.shape}, targets.shape={Y.shape}"
        )
    if ridge < 0:
        raise ValueError(f"Argument `ridge` must be >= 0. Received: ridge={ridge!r}")
    time = Z.shape[-2]
    if not 0 <= washout < time:
        raise ValueError(f"Argument `washout` must lie in [0, {time}). Received: washout={washout!r}")
    Z = Z[..., washout:, :].reshape(-1, Z.shape[-1])  # (N, units)
    Y = Y[..., washout:, :].reshape(-1, Y.shape[-1])  # (N, outputs)
    if use_bias:
        Z = np.concatenate([Z, np.ones((len(Z), 1))], axis=1)  # (N, units + 1)
    penalty = ridge * np.eye(Z.shape[1])
    if use_bias:
        penalty[-1, -1] = 0.0  # the bias is not shrunk
    W = np.linalg.solve(Z.T @ Z + penalty, Z.T @ Y)  # (units [+1], outputs)
    if use_bias:
        return W[:-1], W[-1]
    return W, np.zeros(W.shape[1])


@keras.saving.register_keras_serializable(package="seqlab")
class ESNReadout(keras.layers.Layer):
    r"""The echo state network's linear readout, fit in closed form.

    Equations:
        $$ \hat{y}_t = W z_t + c $$

        $$ W = \arg\min_W \sum_{t > \text{washout}} \lVert y_t - W z_t - c \rVert^2
           + \lambda \lVert W \rVert^2 = Y^\top Z (Z^\top Z + \lambda I)^{-1} $$

        The notes' $W$ is `kernel` transposed; the weights are non-trainable:
        `fit` sets them by ridge regression (`ridge_fit`), not by gradients.

    Args:
        units: Positive integer, number of outputs.
        ridge: Penalty $\lambda \ge 0$. Default 1e-8.
        washout: Steps dropped at the start of every sequence when fitting.
        use_bias: Whether to fit the bias $c$. Default `True`.

    Call arguments:
        inputs: States $z_t$, `(..., reservoir_units)`.

    Returns:
        $\hat{y}_t$, `(..., units)`.

    Example:

    ```python
    u = np.sin(np.arange(300) / 5.0)[None, :, None]  # (1, 300, 1)
    states = ESN(200, seed=0)(u)  # (1, 300, 200)
    readout = ESNReadout(1, ridge=1e-8, washout=50).fit(states[:, :-1], u[:, 1:])
    predictions = readout(states)  # (1, 300, 1): one step ahead
    ```
    """

    def __init__(self, units, ridge=1e-8, washout=0, use_bias=True, **kwargs):
        super().__init__(**kwargs)
        self.units = check_units(units)
        self.ridge = _check_in("ridge", ridge, 0.0, float("inf"), low_open=False)
        if isinstance(washout, bool) or not isinstance(washout, numbers.Integral) or washout < 0:
            raise ValueError(f"Argument `washout` must be an integer >= 0. Received: washout={washout!r}")
        self.washout = int(washout)
        self.use_bias = bool(use_bias)

    def build(self, input_shape):
        self.kernel = self.add_weight(
            shape=(input_shape[-1], self.units), name="kernel", initializer="zeros", trainable=False
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(shape=(self.units,), name="bias", initializer="zeros", trainable=False)

    @property
    def W(self):
        """The notes' readout matrix W, shape (units, reservoir_units)."""
        return ops.transpose(self.kernel)

    def fit(self, states, targets):
        """Sets W (and the bias) by ridge regression of `targets` on `states`; returns self."""
        if not self.built:
            self.build(ops.shape(states))
        W, b = ridge_fit(states, targets, ridge=self.ridge, washout=self.washout, use_bias=self.use_bias)
        self.kernel.assign(W)
        if self.use_bias:
            self.bias.assign(b)
        return self

    def call(self, inputs):
        outputs = ops.matmul(inputs, self.kernel)  # (..., n) @ (n, units)
        if self.bias is not None:
            outputs = outputs + self.bias
        return outputs

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.units)

    def get_config(self):
        config = {"units": self.units, "ridge": self.ridge, "washout": self.washout, "use_bias": self.use_bias}
        return {**super().get_config(), **config}


def reservoir_states(esn, inputs, return_sequences=True):
    """The states of `esn` driven by `inputs` from $z_0 = 0$, in one compiled time loop.

    Under TensorFlow the loop is compiled by XLA: on a CPU it runs about 3x
    faster than a TensorFlow graph once compiled (about 0.3 s), what fitting a
    readout on thousands of steps needs (see `bench/esn_mackey_glass.py`).

    Args:
        esn: An `ESN` layer (or anything with an `ESNCell` as `.cell`).
        inputs: `(batch, time, features)`.
        return_sequences: All states $z_1..z_T$ `(batch, time, units)`
            (default), or only $z_T$ `(batch, units)`.

    Returns:
        The states as a NumPy array, in the cell's dtype.
    """
    if not esn.built:
        esn.build(ops.shape(inputs))
    cell = esn.cell
    drive = keras.Sequential([
        keras.Input((None, cell.kernel.shape[0])),
        keras.layers.RNN(cell, return_sequences=return_sequences, dtype=cell.dtype_policy),
    ])
    drive.compile(jit_compile=keras.backend.backend() == "tensorflow")  # JAX jits anyway; torch.compile is slow
    return drive.predict_on_batch(inputs)


def free_run(esn, readout, inputs, steps):
    """Closed-loop (generative) prediction: the readout's output becomes the next input.

    The reservoir is first driven by `inputs` (teacher forcing, from a zero
    state: make it long enough to wash the initial state out); then, `steps`
    times, the prediction $\\hat{y}_{t+1} = W z_t$ is fed back as $x_{t+1}$.

    Args:
        esn: An `ESN` layer (or anything with an `ESNCell` as `.cell`).
        readout: A fitted `ESNReadout` (or any layer mapping states to inputs).
        inputs: Teacher-forcing inputs, `(batch, time, features)`; the readout
            must predict `features` values.
        steps: Number of free-running steps.

    Returns:
        Predictions $\\hat{y}_{T+1..T+\\text{steps}}$, `(batch, steps, features)`.
    """
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps <= 0:
        raise ValueError(f"Argument `steps` must be a positive integer. Received: steps={steps!r}")
    cell = esn.cell
    # The teacher-forced part runs the cell's own time loop, compiled (about 10x faster than an eager loop).
    z = ops.convert_to_tensor(reservoir_states(esn, inputs, return_sequences=False), dtype=cell.compute_dtype)
    predictions = []
    for _ in range(steps):
        y = ops.cast(readout(z), cell.compute_dtype)  # (B, features): the next input
        predictions.append(y)
        z, _, _ = cell.step(y, [z])
    return ops.stack(predictions, axis=1)  # (B, steps, features)
