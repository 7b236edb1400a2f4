"""Known future inputs: windows, the two-input model every forecaster gets, the closed-form fits, serving."""

import json

import keras
import numpy as np
import pandas as pd
import pytest

from seqlab.data import load_dataset
from seqlab.layers import Hinges
from seqlab.models import build_model
from seqlab.models.arx import fit_arx
from seqlab.models.esn import fit_readout
from seqlab.runs import RunStore
from seqlab.tasks.forecast import KNOWN_FEATURES, frame_window
from seqlab.training import ExperimentSpec, run_experiment
from tests.fresh_process import without_seqlab

SMALL = {"lookback": 24, "horizon": 6, "stride": 47, "known_future": True}


@pytest.fixture(scope="module")
def energy():
    return load_dataset("energy", **SMALL)


def test_future_holds_the_known_columns_over_the_horizon(energy):
    assert energy.known == ("Temperature", "WorkDay")
    test = energy.splits["test"]
    o = int(test.origin[3])
    expected = energy.frame[["Temperature", "WorkDay"]].to_numpy("float32")[o : o + 6]
    np.testing.assert_array_equal(test.future[3], expected)
    assert isinstance(test.inputs, list) and test.inputs[0] is test.x
    assert load_dataset("energy", **{**SMALL, "known_future": False}).splits["test"].future is None


@pytest.mark.parametrize(
    "arch, options",
    [
        ("mlp", {"units": 4}), ("lstm", {"units": 4}), ("narx", {"units": 4}),
        ("gru", {"units": 4, "bidirectional": True}),
    ],
)
def test_every_forecaster_reads_the_known_future(energy, arch, options):
    model = build_model(arch, energy, options)
    assert [tuple(i.shape[1:]) for i in model.inputs] == [(24, 3), (6, 2)]
    window, future = energy.splits["test"].inputs_of(slice(0, 2))
    warmer = future.copy()
    warmer[..., 0] += 5.0  # 5 degrees warmer tomorrow
    if arch == "narx":  # its head starts as the identity on NARX's output: give the known part weights
        head = model.get_layer("forecast")
        kernel, bias = head.get_weights()
        head.set_weights([kernel + 0.1, bias])
    a = model.predict([window, future], verbose=0)
    b = model.predict([window, warmer], verbose=0)
    assert a.shape == (2, 6) and not np.allclose(a, b)


def test_narx_starts_as_its_own_prediction_whatever_the_future(energy):
    model = build_model("narx", energy, {"units": 4})
    window, future = energy.splits["test"].inputs_of(slice(0, 3))
    np.testing.assert_allclose(
        model.predict([window, future], verbose=0), model.predict([window, future * 0 + 7], verbose=0), atol=1e-6
    )


def test_arx_fits_window_and_known_future_in_one_solve(energy):
    model = build_model("arx", energy, {"ridge": 1.0})
    model.compile("adam", "mse")
    fit_arx(model, energy, None, [])
    train = energy.splits["train"]
    arx = model.get_layer("arx")
    windows = keras.Model(model.inputs, arx.input).predict(train.inputs, verbose=0)
    phi = keras.Model(model.inputs, model.get_layer(KNOWN_FEATURES).output).predict(train.inputs, verbose=0)
    u = np.c_[keras.ops.convert_to_numpy(arx.lagged(windows)), phi, np.ones(len(phi))].astype("float64")
    t = energy.target_index
    y = (train.y - energy.scaler.mean[t]) / energy.scaler.std[t]
    penalty = np.eye(u.shape[1])
    penalty[-1, -1] = 0.0  # the bias is not shrunk
    solution = np.linalg.solve(u.T @ u + penalty, u.T @ y)
    scaled = (model.predict(train.inputs, verbose=0) - energy.scaler.mean[t]) / energy.scaler.std[t]
    np.testing.assert_allclose(scaled, u @ solution, atol=2e-3)


def test_esn_readout_fits_the_known_features_too(energy):
    model = build_model("esn", energy, {"units": 8})
    model.compile("adam", "mse")
    fit_readout(model, energy, ExperimentSpec("energy", "esn", SMALL, {"units": 8}).resolved(), [])
    readout = model.get_layer("forecast")
    assert readout.kernel.shape[0] > 8  # reservoir state plus the known features
    assert np.abs(readout.get_weights()[0][8:]).sum() > 0


def test_hinges_draw_a_piecewise_linear_basis():
    phi = Hinges(columns=[0, 0, 1], knots=[-1.0, 1.0, 0.5])(np.array([[[-2.0, 1.0], [0.0, 0.0], [2.0, 2.0]]]))
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(phi)[0],
        [[-2, 1, 0, 0, 0.5], [0, 0, 1, 0, 0], [2, 2, 3, 1, 1.5]],
    )
    again = Hinges.from_config(Hinges(columns=[1], knots=[0.2]).get_config())
    assert again.columns == [1] and again.knots == [0.2]
    with pytest.raises(ValueError, match="same length"):
        Hinges(columns=[0], knots=[])
    with pytest.raises(ValueError, match="index the 2 input columns"):
        Hinges(columns=[2], knots=[0.0])(np.zeros((1, 3, 2)))


def test_a_run_records_known_inputs_and_its_savedmodel_serves_without_seqlab(tmp_path):
    store = RunStore(tmp_path / "runs")
    run = run_experiment(ExperimentSpec("energy", "arx", SMALL), store=store)
    assert run.meta.known == ["Temperature", "WorkDay"]
    assert [i["name"] for i in run.meta.inputs] == ["window", "future"]
    data = load_dataset("energy", **SMALL)
    window, future = data.splits["test"].inputs_of(slice(0, 2))
    np.save(tmp_path / "window.npy", window)
    np.save(tmp_path / "future.npy", future)
    result = without_seqlab(f"""
import json
import numpy as np, tensorflow as tf
served = tf.saved_model.load({str(run.savedmodel_path)!r})
window, future = np.load("window.npy"), np.load("future.npy")
print(json.dumps({{"out": served.serve([tf.constant(window), tf.constant(future)]).numpy().tolist()}}))
""", tmp_path)
    assert result["seqlab"] is False
    stored = np.load(run.path / "predictions.npz")["y_pred"][:2]
    np.testing.assert_allclose(result["out"], stored, atol=1e-4)


def test_cli_predict_reads_history_then_the_known_rows_to_forecast(capsys, tmp_path, runs_dir, energy):
    from tests.test_cli import run_cli

    run = run_experiment(ExperimentSpec("energy", "arx", SMALL), store=RunStore(runs_dir))
    o = int(energy.splits["test"].origin[0])
    frame = energy.frame.iloc[o - 24 : o + 6].copy()
    frame.iloc[-6:, 0] = np.nan  # tomorrow's demand: what we forecast
    csv = tmp_path / "tomorrow.csv"
    frame.to_csv(csv)
    code, out, err = run_cli(capsys, "predict", run.run_id, "--input", str(csv), "--json")
    assert code == 0, err
    stored = np.load(run.path / "predictions.npz")["y_pred"][0]
    np.testing.assert_allclose(json.loads(out.splitlines()[-1])["forecast"], stored, atol=1e-4)
    frame.drop(columns="WorkDay").to_csv(csv)
    code, _, err = run_cli(capsys, "predict", run.run_id, "--input", str(csv))
    assert code == 2 and "lacks column(s) ['WorkDay']" in err


def test_frame_window_takes_history_then_the_rows_to_forecast(energy):
    class Meta:
        features, lookback, horizon, known = ["Demand", "Temperature", "WorkDay"], 24, 6, ["Temperature", "WorkDay"]

    frame = energy.frame.iloc[:30].copy()
    frame.iloc[-6:, 0] = np.nan  # the demand to forecast is unknown
    window, future = frame_window(Meta, frame)
    np.testing.assert_array_equal(window[0], frame.iloc[:24].to_numpy("float32"))
    np.testing.assert_array_equal(future[0], frame.iloc[24:, 1:].to_numpy("float32"))
    with pytest.raises(ValueError, match="at least 24 rows of history and then 6 rows to forecast"):
        frame_window(Meta, frame.iloc[:29])
    gap = frame.copy()
    gap.iloc[-2, 1] = np.nan
    with pytest.raises(ValueError, match=r"known columns \['Temperature', 'WorkDay'\] contain NaN"):
        frame_window(Meta, gap)
    with pytest.raises(ValueError, match="lacks column"):
        frame_window(Meta, pd.DataFrame(frame.drop(columns="WorkDay")))


def test_tbptt_refuses_known_future_inputs(tmp_path):
    spec = ExperimentSpec("energy", "lstm", SMALL, {"units": 2}, epochs=1, tbptt=[4, 4], batch_size=2)
    with pytest.raises(ValueError, match="known_future off"):
        run_experiment(spec, store=RunStore(tmp_path / "runs"))
