import keras
import numpy as np
import pytest

from seqlab.data.mackey_glass import mackey_glass_series
from seqlab.layers import ESN, ESNCell, ESNReadout, free_run, ridge_fit
from seqlab.layers.recurrent.esn import spectral_radius_of

from ..layer_test import run_layer_test


def numpy(tensor):
    return keras.ops.convert_to_numpy(tensor)


def test_layer_contract(tmp_path):
    run_layer_test(
        ESN,
        {"units": 8, "seed": 0},
        input_shape=(2, 5, 3),
        expected_output_shape=(2, 5, 8),
        tmp_path=tmp_path,
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=3,
        run_training_check=False,  # nothing to train: see test_reservoir_stays_fixed_in_training
    )


def test_readout_contract(tmp_path):
    run_layer_test(
        ESNReadout,
        {"units": 2, "ridge": 1e-6, "washout": 1},
        input_shape=(2, 5, 8),
        expected_output_shape=(2, 5, 2),
        tmp_path=tmp_path,
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=2,
        run_training_check=False,
    )


def test_reservoir_stays_fixed_in_training():
    esn = ESN(6, seed=1, return_sequences=False)
    model = keras.Sequential([keras.Input((5, 2)), esn, keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    before = [numpy(w).copy() for w in esn.weights]
    model.train_on_batch(np.ones((2, 5, 2)), np.ones((2, 1)))
    for weight, old in zip(esn.weights, before):
        assert not weight.trainable
        np.testing.assert_array_equal(numpy(weight), old)


def test_numpy_reference_from_the_equations():
    """z_t = (1 - a) z_{t-1} + a tanh(B z_{t-1} + V x_t + b)."""
    esn = ESN(7, leak_rate=0.4, bias_scaling=0.5, seed=2)
    x = np.random.normal(size=(2, 6, 3)).astype("float32")
    states = numpy(esn(x))
    V, B, b = numpy(esn.cell.V), numpy(esn.cell.B), numpy(esn.cell.b)
    z = np.zeros((2, 7))
    for t in range(6):
        z = 0.6 * z + 0.4 * np.tanh(z @ B.T + x[:, t] @ V.T + b)
        np.testing.assert_allclose(states[:, t], z, atol=1e-5)


def test_step_internals_trace_the_layer():
    esn = ESN(5, seed=0)
    x = np.random.normal(size=(2, 4, 1)).astype("float32")
    states = numpy(esn(x))
    cell = esn.cell
    z = cell.get_initial_state(batch_size=2)
    for t in range(4):
        _, z, internals = cell.step(x[:, t], z)
        assert tuple(internals) == ESNCell.internal_names
        np.testing.assert_allclose(numpy(internals["h"]), states[:, t], atol=1e-6)


@pytest.mark.parametrize("units, spectral_radius, connectivity", [(50, 0.9, 0.2), (80, 1.3, 0.1), (20, 0.5, 1.0)])
def test_spectral_radius_is_the_argument(units, spectral_radius, connectivity):
    cell = ESNCell(units, spectral_radius=spectral_radius, connectivity=connectivity, seed=0)
    cell.build((None, 2))
    B = numpy(cell.B).astype(np.float64)
    assert abs(np.max(np.abs(np.linalg.eigvals(B))) - spectral_radius) < 1e-4
    assert abs(np.mean(B != 0) - connectivity) < 0.1


def test_the_sparse_spectral_radius_equals_the_dense_one():
    rng = np.random.default_rng(0)
    B = rng.uniform(-1.0, 1.0, (300, 300)) * (rng.random((300, 300)) < 0.1)  # ARPACK's size
    assert spectral_radius_of(B) == pytest.approx(np.max(np.abs(np.linalg.eigvals(B))), rel=1e-10)
    assert spectral_radius_of(np.triu(B, 1)) < 1e-8  # nilpotent: reservoir_matrix draws again


def test_seed_fixes_the_reservoir():
    def weights(**kwargs):
        cell = ESNCell(10, **kwargs)
        cell.build((None, 2))
        return [numpy(w) for w in cell.weights]

    for a, b in zip(weights(seed=3), weights(seed=3)):
        np.testing.assert_array_equal(a, b)
    assert not np.allclose(weights(seed=3)[1], weights(seed=4)[1])
    keras.utils.set_random_seed(7)
    first = weights()
    keras.utils.set_random_seed(7)
    for a, b in zip(first, weights()):  # seed=None follows keras.utils.set_random_seed
        np.testing.assert_array_equal(a, b)


def test_ridge_fit_recovers_a_linear_readout():
    rng = np.random.default_rng(0)
    W, c = rng.normal(size=(12, 2)), rng.normal(size=2)
    states = rng.normal(size=(3, 40, 12))
    targets = states @ W + c
    targets[:, :5] = 100.0  # garbage during the washout must not matter
    W_fit, c_fit = ridge_fit(states, targets, ridge=1e-10, washout=5)
    np.testing.assert_allclose(W_fit, W, atol=1e-6)
    np.testing.assert_allclose(c_fit, c, atol=1e-6)
    readout = ESNReadout(2, ridge=1e-10, washout=5).fit(states.astype("float32"), targets)
    np.testing.assert_allclose(numpy(readout.W), W.T, atol=1e-5)
    np.testing.assert_allclose(numpy(readout(states[:, 5:].astype("float32"))), targets[:, 5:], atol=1e-4)


def test_ridge_shrinks_the_readout():
    rng = np.random.default_rng(1)
    states, targets = rng.normal(size=(100, 5)), rng.normal(size=(100, 1))
    small, _ = ridge_fit(states, targets, ridge=1e-8)
    large, _ = ridge_fit(states, targets, ridge=1e3)
    assert np.linalg.norm(large) < 0.2 * np.linalg.norm(small)


def test_free_run_predicts_mackey_glass():
    series = np.tanh(mackey_glass_series(1300) - 1.0).astype("float32")
    train, horizon = 1200, 50
    u, y = series[None, :train, None], series[None, 1 : train + 1, None]
    esn = ESN(200, seed=0)
    readout = ESNReadout(1, washout=100).fit(keras.Sequential([esn]).predict_on_batch(u), y)
    prediction = numpy(free_run(esn, readout, u, steps=horizon))
    assert prediction.shape == (1, horizon, 1)
    error = np.sqrt(np.mean((prediction[0, :, 0] - series[train : train + horizon]) ** 2)) / series.std()
    assert error < 1e-2, error


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"units": 0}, "units"),
        ({"units": 5, "spectral_radius": 0.0}, "spectral_radius"),
        ({"units": 5, "spectral_radius": -1.0}, "spectral_radius"),
        ({"units": 5, "leak_rate": 0.0}, "leak_rate"),
        ({"units": 5, "leak_rate": 1.5}, "leak_rate"),
        ({"units": 5, "input_scaling": 0}, "input_scaling"),
        ({"units": 5, "bias_scaling": -0.1}, "bias_scaling"),
        ({"units": 5, "connectivity": 0.0}, "connectivity"),
        ({"units": 5, "seed": 1.5}, "seed"),
    ],
)
def test_argument_errors_name_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ESN(**kwargs)


def test_fit_and_free_run_errors():
    with pytest.raises(ValueError, match="same leading dimensions"):
        ridge_fit(np.zeros((10, 3)), np.zeros((9, 1)))
    with pytest.raises(ValueError, match="washout"):
        ridge_fit(np.zeros((10, 3)), np.zeros((10, 1)), washout=10)
    with pytest.raises(ValueError, match="ridge"):
        ESNReadout(1, ridge=-1.0)
    with pytest.raises(ValueError, match="steps"):
        free_run(ESN(4, seed=0), ESNReadout(1), np.zeros((1, 3, 1)), steps=0)


def test_a_reservoir_that_is_always_nilpotent_is_an_error():
    with pytest.raises(ValueError, match="spectral radius 0"):
        ESNCell(1, connectivity=1e-9, seed=0).build((None, 1))


def test_reservoir_states_are_the_layers_own_states_in_one_compiled_loop():
    from seqlab.layers.recurrent import reservoir_states

    u = np.random.default_rng(0).normal(size=(2, 30, 3)).astype("float32")
    esn = ESN(16, seed=3)
    expected = keras.ops.convert_to_numpy(esn(u))  # (2, 30, 16)
    np.testing.assert_allclose(reservoir_states(esn, u), expected, atol=1e-5)
    np.testing.assert_allclose(reservoir_states(esn, u, return_sequences=False), expected[:, -1], atol=1e-5)
