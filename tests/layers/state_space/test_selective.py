import keras
import numpy as np
import pytest

from seqlab.layers.state_space import SelectiveStateSpace
from tests.layers.layer_test import run_layer_test
from tests.layers.state_space.reference import selective_loop

BATCH, STEPS, CHANNELS, N = 2, 24, 4, 5


def _inputs(steps=STEPS, seed=0):
    return np.random.default_rng(seed).normal(size=(BATCH, steps, CHANNELS)).astype("float32")


def _layer(u, **options):
    """A built layer with every weight moved off its start, so each one shows in the output."""
    layer = SelectiveStateSpace(N, dt_min=0.01, dt_max=0.5, **options)
    layer.build(u.shape)
    rng = np.random.default_rng(3)
    for weight in layer.weights:
        weight.assign((weight.numpy() + rng.normal(0.0, 0.3, weight.shape)).astype("float32"))
    return layer


def test_layer_basics(tmp_path):
    run_layer_test(
        SelectiveStateSpace, {"state_size": 3}, input_shape=(2, 5, 4), expected_output_shape=(2, 5, 4),
        tmp_path=tmp_path, expected_num_trainable_weights=6, expected_num_non_trainable_weights=0,
    )


def test_low_rank_last_step_and_state_basics(tmp_path):
    run_layer_test(
        SelectiveStateSpace, {"state_size": 3, "dt_rank": 2, "return_sequences": False, "return_state": True},
        input_shape=(2, 5, 4), expected_output_shape=[(2, 4), (2, 4, 3)], tmp_path=tmp_path,
        expected_num_trainable_weights=7,  # dt_down, dt_up, dt_bias, B_kernel, C_kernel, A_log, D
    )


def test_delta_starts_between_dt_min_and_dt_max():
    layer = SelectiveStateSpace(N, dt_min=0.01, dt_max=0.05)
    layer.build((None, None, CHANNELS))
    delta = keras.ops.convert_to_numpy(keras.ops.softplus(layer.dt_bias))
    assert np.all((delta >= 0.01 - 1e-7) & (delta <= 0.05 + 1e-7))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer.A), -np.arange(1, N + 1) * np.ones((CHANNELS, 1)))


@pytest.mark.parametrize("dt_rank", [None, 2])
def test_the_layer_is_the_equations_loop(dt_rank):
    u = _inputs()
    layer = _layer(u, dt_rank=dt_rank)
    expected_y, expected_x = selective_loop(layer, u.astype(np.float64))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer(u)), expected_y, atol=1e-5)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer.states(u)[0]), expected_x, atol=1e-5)


def test_the_scan_is_the_step_loop_from_any_state():
    u = _inputs()
    layer = _layer(u, return_state=True)
    x0 = np.random.default_rng(1).normal(size=(BATCH, CHANNELS, N)).astype("float32")
    y, last = layer(u, initial_state=[x0])
    state, outputs = [x0], []
    for t in range(STEPS):
        y_t, state = layer.step(u[:, t], state)
        outputs.append(keras.ops.convert_to_numpy(y_t))
    np.testing.assert_allclose(np.stack(outputs, 1), keras.ops.convert_to_numpy(y), atol=1e-5)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(state[0]), keras.ops.convert_to_numpy(last), atol=1e-5)
    expected_y, _ = selective_loop(layer, u.astype(np.float64), x0=x0.astype(np.float64))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(y), expected_y, atol=1e-5)


def test_causal():
    u = _inputs()
    layer = _layer(u)
    before = keras.ops.convert_to_numpy(layer(u))
    for t in (0, 7, STEPS - 2):
        changed = u.copy()
        changed[:, t + 1 :] += 5.0
        after = keras.ops.convert_to_numpy(layer(changed))
        np.testing.assert_array_equal(after[:, : t + 1], before[:, : t + 1])
        assert not np.allclose(after[:, t + 1], before[:, t + 1])


def test_the_selection_depends_on_the_input():
    """Unlike the diagonal layer's, this layer's Δ_t, B_t and C_t change with u_t."""
    u = _inputs()
    layer = _layer(u)
    first, second = (layer.selection(u[:, t]) for t in (0, 1))
    for a, b in zip(first, second, strict=True):
        assert not np.allclose(keras.ops.convert_to_numpy(a), keras.ops.convert_to_numpy(b))


@pytest.mark.parametrize(
    "options, message",
    [
        ({"state_size": -1}, "state_size=-1"),
        ({"dt_rank": 0}, "dt_rank=0"),
        ({"dt_rank": True}, "dt_rank=True"),
        ({"dt_min": -0.1}, r"dt_min=-0\.1"),
        ({"dt_min": 0.5, "dt_max": 0.1}, "must not exceed"),
    ],
)
def test_bad_arguments_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        SelectiveStateSpace(**options)


def test_a_single_step_input_is_refused():
    with pytest.raises(ValueError, match="ndim=3"):
        SelectiveStateSpace(4)(np.zeros((2, 4), "float32"))
