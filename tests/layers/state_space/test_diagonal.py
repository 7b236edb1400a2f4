import keras
import numpy as np
import pytest
import scipy.linalg

from seqlab.layers.state_space import DiagonalStateSpace
from tests.layers.layer_test import run_layer_test
from tests.layers.state_space.reference import diagonal_discretised, diagonal_loop

BATCH, STEPS, CHANNELS, N = 2, 24, 3, 6


def _layer(u, **options):
    """A built layer with every weight moved off its (structured) start, so each one shows in the output."""
    layer = DiagonalStateSpace(N, dt_min=0.01, dt_max=0.5, **options)
    layer.build(u.shape)
    rng = np.random.default_rng(3)
    for weight in layer.weights:
        noise = rng.normal(0.0, 0.3, weight.shape)
        weight.assign((weight.numpy() + noise).astype("float32"))
    return layer


def _inputs(steps=STEPS, seed=0):
    return np.random.default_rng(seed).normal(size=(BATCH, steps, CHANNELS)).astype("float32")


def test_layer_basics(tmp_path):
    run_layer_test(
        DiagonalStateSpace, {"state_size": 4}, input_shape=(2, 5, 3), expected_output_shape=(2, 5, 3),
        tmp_path=tmp_path, expected_num_trainable_weights=7, expected_num_non_trainable_weights=0,
    )


def test_real_recurrence_last_step_and_state_basics(tmp_path):
    run_layer_test(
        DiagonalStateSpace,
        {"state_size": 4, "init": "real", "mode": "recurrence", "return_sequences": False, "return_state": True},
        input_shape=(2, 5, 3), expected_output_shape=[(2, 3), (2, 3, 4)], tmp_path=tmp_path,
        expected_num_trainable_weights=5,  # log_dt, log_A_real, B, C_real, D
    )


def test_the_starts_are_s4d_lin_and_s4d_real():
    lin, real = DiagonalStateSpace(N, dt_min=0.01, dt_max=0.05), DiagonalStateSpace(N, init="real")
    for layer in (lin, real):
        layer.build((None, None, CHANNELS))
    dt = np.exp(lin.log_dt.numpy())
    assert np.all((dt >= 0.01 - 1e-7) & (dt <= 0.05 + 1e-7)) and len(np.unique(dt)) == CHANNELS
    n = np.arange(N) * np.ones((CHANNELS, 1))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(lin.A[0]), -0.5 * np.ones_like(n), rtol=1e-6)
    np.testing.assert_allclose(lin.A[1].numpy(), np.pi * n, rtol=1e-6)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(real.A[0]), -(n + 1), rtol=1e-6)
    assert real.A[1] is None


@pytest.mark.parametrize("init", ["lin", "real"])
def test_zero_order_hold_is_the_matrix_exponential_of_a_dense_equivalent(init):
    """Each complex mode as the real 2x2 block [[a_r, -a_i], [a_i, a_r]] of a dense A: scipy's expm gives
    Ā = exp(ΔA) and B̄ = (ΔA)^{-1}(exp(ΔA) - I) ΔB, which the layer must match mode by mode."""
    layer = _layer(_inputs(), init=init)
    (A_bar_real, A_bar_imag), (B_bar_real, B_bar_imag) = layer.discretised()
    a_real = keras.ops.convert_to_numpy(layer.A[0]).astype(np.float64)
    a_imag = np.zeros_like(a_real) if init == "real" else layer.A_imag.numpy().astype(np.float64)
    dt = np.exp(layer.log_dt.numpy().astype(np.float64))
    B = layer.B.numpy().astype(np.float64)
    for h in range(CHANNELS):
        blocks = [np.array([[ar, -ai], [ai, ar]]) for ar, ai in zip(a_real[h], a_imag[h])]
        A = scipy.linalg.block_diag(*blocks)  # (2N, 2N) real
        B_vector = np.stack([B[h], np.zeros(N)], axis=1).reshape(-1)  # each mode's B as (re, im)
        A_bar = scipy.linalg.expm(dt[h] * A)
        B_bar = np.linalg.solve(dt[h] * A, A_bar - np.eye(2 * N)) @ (dt[h] * B_vector)
        np.testing.assert_allclose(A_bar[0::2, 0::2].diagonal(), A_bar_real[h], atol=1e-6)
        np.testing.assert_allclose(A_bar[1::2, 0::2].diagonal(), 0 if A_bar_imag is None else A_bar_imag[h], atol=1e-6)
        np.testing.assert_allclose(B_bar[0::2], B_bar_real[h], atol=1e-6)
        np.testing.assert_allclose(B_bar[1::2], 0 if B_bar_imag is None else B_bar_imag[h], atol=1e-6)


@pytest.mark.parametrize("init", ["lin", "real"])
def test_a_short_step_keeps_its_digits(init):
    """With Δ = 1e-4, exp(ΔA) - 1 computed as such in float32 loses about 3 of B̄'s 7 digits; expm1 keeps them."""
    layer = DiagonalStateSpace(N, init=init, dt_min=1e-4, dt_max=1e-4)
    layer.build((None, None, CHANNELS))
    _, (B_bar_real, B_bar_imag) = layer.discretised()
    B_bar = keras.ops.convert_to_numpy(B_bar_real) + 1j * (0.0 if B_bar_imag is None else B_bar_imag.numpy())
    expected = diagonal_discretised(layer)[1]
    np.testing.assert_array_less(np.abs(B_bar - expected) / np.abs(expected), 1e-5)


@pytest.mark.parametrize("mode", ["convolution", "recurrence"])
@pytest.mark.parametrize("init", ["lin", "real"])
def test_the_layer_is_the_equations_loop(init, mode):
    u = _inputs()
    layer = _layer(u, init=init, mode=mode)
    expected_y, expected_x = diagonal_loop(layer, u.astype(np.float64))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer(u)), expected_y, atol=1e-5)
    states = [keras.ops.convert_to_numpy(part) for part in layer.states(u)]
    np.testing.assert_allclose(states[0], expected_x.real, atol=1e-5)
    np.testing.assert_allclose(states[1] if init == "lin" else 0.0, expected_x.imag, atol=1e-5)


@pytest.mark.parametrize("init", ["lin", "real"])
def test_convolution_and_recurrence_agree_from_any_state(init):
    """In float32: the two paths differ by about 1e-6 here (1e-15 with dtype float64), well inside 1e-5."""
    u = _inputs()
    conv = _layer(u, init=init, return_state=True)
    recurrence = DiagonalStateSpace(N, init=init, mode="recurrence", return_state=True)
    recurrence.build(u.shape)
    recurrence.set_weights(conv.get_weights())
    x0 = [np.random.default_rng(1).normal(size=(BATCH, CHANNELS, N)).astype("float32") for _ in conv.state_names]
    for initial_state in (None, x0):
        by_kernel = conv(u, initial_state=initial_state)
        by_steps = recurrence(u, initial_state=initial_state)
        for a, b in zip(by_kernel, by_steps, strict=True):
            np.testing.assert_allclose(keras.ops.convert_to_numpy(a), keras.ops.convert_to_numpy(b), atol=1e-5)
    # The kernel is C Ā^k B̄.
    A_bar, B_bar = diagonal_discretised(conv)
    C = conv.C_real.numpy() + 1j * (conv.C_imag.numpy() if init == "lin" else 0.0)
    expected = np.stack([(C * A_bar**k * B_bar).sum(-1).real for k in range(STEPS)], axis=1)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(conv.kernel(STEPS)), expected, atol=1e-5)


def test_stepping_continues_the_sequence():
    """step() from the state after the first half gives the second half of the whole sequence's output."""
    u = _inputs()
    layer = _layer(u)
    whole = keras.ops.convert_to_numpy(layer(u))
    state = [part[:, STEPS // 2 - 1] for part in layer.states(u[:, : STEPS // 2])]
    outputs = []
    for t in range(STEPS // 2, STEPS):
        y_t, state = layer.step(u[:, t], state)
        outputs.append(keras.ops.convert_to_numpy(y_t))
    np.testing.assert_allclose(np.stack(outputs, 1), whole[:, STEPS // 2 :], atol=1e-5)


@pytest.mark.parametrize("mode", ["convolution", "recurrence"])
def test_causal(mode):
    u = _inputs()
    layer = _layer(u, mode=mode)
    before = keras.ops.convert_to_numpy(layer(u))
    for t in (0, 7, STEPS - 2):
        changed = u.copy()
        changed[:, t + 1 :] += 5.0
        after = keras.ops.convert_to_numpy(layer(changed))
        np.testing.assert_array_equal(after[:, : t + 1], before[:, : t + 1])
        assert not np.allclose(after[:, t + 1], before[:, t + 1])


def test_long_and_unknown_lengths_take_the_fft_and_agree():
    """Above 256 steps, and when the length is only known at run time, the kernel is applied by FFT."""
    u = np.random.default_rng(0).normal(size=(1, 300, 2)).astype("float32")
    layer = _layer(u)
    expected, _ = diagonal_loop(layer, u.astype(np.float64))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer(u)), expected, atol=1e-4)
    inputs = keras.Input((None, 2))
    model = keras.Model(inputs, layer(inputs))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(model(u[:, :20])), expected[:, :20], atol=1e-5)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"state_size": 0}, "state_size=0"),
        ({"state_size": 2.5}, "state_size=2.5"),
        ({"init": "inv"}, "init='inv'"),
        ({"mode": "fft"}, "mode='fft'"),
        ({"dt_min": 0.0}, "dt_min=0.0"),
        ({"dt_max": float("nan")}, "dt_max=nan"),
        ({"dt_min": 0.2, "dt_max": 0.1}, "must not exceed"),
    ],
)
def test_bad_arguments_are_named(options, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        DiagonalStateSpace(**options)


def test_unknown_channels_are_refused():
    with pytest.raises(ValueError, match="known number of channels"):
        DiagonalStateSpace(4).build((2, 5, None))
