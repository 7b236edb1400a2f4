import os
import subprocess
import sys
from pathlib import Path

import keras
import numpy as np
import pytest

from seqlab.layers.arx import ARX
from seqlab.layers.docs import equations

from .layer_test import run_layer_test

REPO = Path(__file__).resolve().parents[2]


def windows(n=200, time=6, features=2, horizon=3, seed=0):
    """Random windows and targets that depend linearly on the last steps, plus noise."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, time, features))
    y = x[:, -2:, :].reshape(n, -1) @ rng.normal(size=(2 * features, horizon)) + 0.1 * rng.normal(size=(n, horizon))
    return x, y


def design(x, lag):
    """The notes' regressors u_n (last `lag` steps, oldest first) with a column of ones for the bias."""
    return np.c_[x[:, -lag:, :].reshape(len(x), -1), np.ones(len(x))]


def test_layer_contract(tmp_path):
    run_layer_test(
        ARX,
        {"horizon": 3, "lag": 4, "ridge": 0.5},
        input_shape=(2, 6, 2),
        expected_output_shape=(2, 3),
        tmp_path=tmp_path,
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=2,
        run_training_check=False,  # fitted by least squares, never by gradients
    )
    assert ARX(3).get_config()["lag"] is None and ARX(3, lag=2, ridge=1).get_config()["ridge"] == 1.0


def test_least_squares_weights_equal_numpy_lstsq():
    x, y = windows()
    arx = ARX(3, lag=4).fit(x, y)
    coef, *_ = np.linalg.lstsq(design(x, 4), y, rcond=None)
    np.testing.assert_allclose(arx.kernel.numpy(), coef[:-1], atol=1e-5)
    np.testing.assert_allclose(arx.bias.numpy(), coef[-1], atol=1e-5)
    # The forecast is u_n^T W + c: the design matrix times the coefficients.
    np.testing.assert_allclose(arx(x.astype("float32")), design(x, 4) @ coef, atol=1e-4)


def test_ridge_weights_solve_the_normal_equations_with_an_unshrunk_bias():
    x, y = windows()
    ridge = 25.0
    arx = ARX(3, lag=5, ridge=ridge).fit(x, y)
    U = design(x, 5)
    penalty = ridge * np.eye(U.shape[1])
    penalty[-1, -1] = 0.0
    coef = np.linalg.solve(U.T @ U + penalty, U.T @ y)
    np.testing.assert_allclose(arx.kernel.numpy(), coef[:-1], atol=1e-5)
    np.testing.assert_allclose(arx.bias.numpy(), coef[-1], atol=1e-5)
    plain = ARX(3, lag=5).fit(x, y)
    assert np.linalg.norm(arx.kernel.numpy()) < np.linalg.norm(plain.kernel.numpy())  # shrunk


def test_only_the_last_lag_steps_are_read_and_the_default_is_the_whole_window():
    x, y = windows(time=6)
    arx = ARX(3, lag=2).fit(x, y)
    changed = x.copy()
    changed[:, :4] = 99.0  # older than the lag
    np.testing.assert_allclose(arx(changed.astype("float32")), arx(x.astype("float32")), atol=1e-5)
    assert ARX(3).fit(x, y).kernel.shape == (6 * 2, 3)


def test_a_fitted_layer_reloads_from_keras_with_identical_predictions(tmp_path):
    x, y = windows()
    inputs = keras.Input((6, 2))
    arx = ARX(3, lag=4, ridge=0.1, name="arx")
    model = keras.Model(inputs, arx(inputs))
    arx.fit(x, y)
    model.save(tmp_path / "arx.keras")
    again = keras.saving.load_model(tmp_path / "arx.keras")
    np.testing.assert_array_equal(again.predict(x, verbose=0), model.predict(x, verbose=0))


def test_import_seqlab_alone_registers_the_layer_for_loading(tmp_path):
    inputs = keras.Input((6, 2))
    keras.Model(inputs, ARX(3)(inputs)).save(tmp_path / "arx.keras")
    code = f"import seqlab, keras; print(type(keras.saving.load_model({str(tmp_path / 'arx.keras')!r}).layers[1]).__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(REPO), "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert out.returncode == 0 and out.stdout.split()[-1] == "ARX", out.stderr[-2000:]


@pytest.mark.parametrize(
    "kwargs, message",
    [({"horizon": 0}, "horizon"), ({"horizon": 2.5}, "horizon"), ({"horizon": 3, "lag": 0}, "lag"),
     ({"horizon": 3, "lag": True}, "lag"), ({"horizon": 3, "ridge": -1.0}, "ridge"),
     ({"horizon": 3, "ridge": float("nan")}, "ridge"), ({"horizon": 3, "ridge": "big"}, "ridge")],
)
def test_bad_arguments_name_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ARX(**kwargs)


def test_bad_shapes_are_clear_errors():
    with pytest.raises(ValueError, match=r"`lag` must be at most the window length 6"):
        ARX(3, lag=7)(np.zeros((1, 6, 2)))
    with pytest.raises(ValueError, match=r"\(batch, time, features\)"):
        ARX(3)(np.zeros((1, 6)))
    x, y = windows()
    with pytest.raises(ValueError, match=r"targets` must have shape \(windows, 4\)"):
        ARX(4).fit(x, y)


def test_collinear_inputs_without_ridge_are_refused_not_solved_into_noise():
    x, y = windows()
    x[:, :, 1] = x[:, :, 0]  # a feature that repeats another
    with pytest.raises(ValueError, match="collinear.*set ridge > 0"):
        ARX(3, lag=2).fit(x, y)
    assert np.isfinite(ARX(3, lag=2, ridge=1e-3).fit(x, y).kernel.numpy()).all()


def test_equations_are_documented():
    blocks = equations(ARX)
    assert len(blocks) == 3 and "a_{\\tau k}" in blocks[0] and "\\lambda" in blocks[2]
