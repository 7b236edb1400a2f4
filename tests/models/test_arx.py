import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from seqlab.models import build_model, get_architecture, list_architectures
from seqlab.runs import RunStore
from seqlab.training import ExperimentSpec, run_experiment

REPO = Path(__file__).resolve().parents[2]
SINE = {"length": 600, "lookback": 20, "horizon": 5}


@pytest.fixture(scope="module")
def sine_run(tmp_path_factory):
    """One least-squares ARX run on the noisy sine (ridge 0), with its events."""
    events = []
    spec = ExperimentSpec("sine", "arx", data_options=SINE, model_options={"lag": 8, "ridge": 0.0})
    run = run_experiment(spec, on_event=events.append, store=RunStore(tmp_path_factory.mktemp("arx_runs")))
    return run, events


def test_registered_for_forecasting_only_with_its_options():
    arch = get_architecture("arx", "forecast")
    assert arch.as_dict()["fit"] == "closed form" and set(arch.defaults) == {"lag", "ridge"}
    assert "arx" not in {a.name for a in list_architectures("regress")}


def test_a_run_is_least_squares_on_the_scaled_lagged_window(sine_run):
    from seqlab.data import load_dataset

    run, _ = sine_run
    data = load_dataset("sine", **SINE)
    model = run.load_model()
    train = data.splits["train"]
    scaled = (train.x - data.scaler.mean) / data.scaler.std  # what the body sees after Normalization
    U = np.c_[scaled[:, -8:, :].reshape(len(scaled), -1), np.ones(len(scaled))]
    Y = (train.y - data.scaler.mean[0]) / data.scaler.std[0]
    coef, *_ = np.linalg.lstsq(U, Y, rcond=None)
    kernel, bias = model.get_layer("arx").get_weights()
    np.testing.assert_allclose(kernel, coef[:-1], atol=1e-5)
    np.testing.assert_allclose(bias, coef[-1], atol=1e-5)
    head_kernel, head_bias = model.get_layer("forecast").get_weights()
    np.testing.assert_array_equal(head_kernel, np.eye(5))  # the head passes the ARX's forecast through
    np.testing.assert_array_equal(head_bias, np.zeros(5))
    assert not model.trainable_weights  # nothing left for gradients to move


def test_one_closed_form_step_that_beats_the_naive_forecast(sine_run):
    run, events = sine_run
    kinds = [e["type"] for e in events]
    assert kinds.count("batch") == 1 and kinds.count("epoch") == 1 and kinds[-1] == "end"
    assert run.meta.status == "completed" and run.meta.train_seconds < 10
    metrics = run.metrics
    assert metrics["model"]["mae"] < 0.5 * metrics["baselines"]["naive"]["mae"]


def test_keras_file_and_savedmodel_reload_with_identical_predictions(sine_run, tmp_path):
    """In a fresh process: the SavedModel serves raw windows without seqlab; ``import seqlab`` loads the .keras."""
    run, _ = sine_run
    predictions = run.predictions()
    from seqlab.data import load_dataset

    x = load_dataset("sine", **SINE).splits["test"].x
    np.save(tmp_path / "x.npy", x)
    script = f"""
import json, sys
import numpy as np, tensorflow as tf
x = np.load("x.npy")
saved = tf.saved_model.load({str(run.savedmodel_path)!r})
served = saved.serve(tf.constant(x)).numpy()
without = "seqlab" not in sys.modules
from seqlab.runs import RunStore
loaded = RunStore({str(run.path.parent)!r}).read({run.run_id!r}).load_model().predict(x, verbose=0)
print(json.dumps({{"without_seqlab": without, "served": served.tolist(), "keras": loaded.tolist()}}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO), "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["without_seqlab"]
    np.testing.assert_array_equal(result["keras"], predictions["y_pred"])
    np.testing.assert_allclose(result["served"], predictions["y_pred"], atol=1e-5)


def test_energy_trains_in_seconds_and_beats_seasonal_naive(tmp_path):
    spec = ExperimentSpec("energy", "arx", data_options={"stride": 12})  # about 1,000 training windows
    run = run_experiment(spec, store=RunStore(tmp_path))
    assert run.meta.train_seconds < 10
    mape = run.metrics["model"]["mape"]
    assert mape < run.metrics["baselines"]["seasonal_naive_day"]["mape"], run.metrics


@pytest.mark.parametrize(
    "options, message",
    [({"lag": 21}, r"lag must be at most the lookback \(20\)"), ({"lag": -1}, r"lag must lie in \[0"),
     ({"ridge": -1.0}, r"ridge must lie in \[0"), ({"ridge": float("inf")}, "ridge must be a finite number"),
     ({"order": 3}, "valid options")],
)
def test_bad_options_are_clear_errors(options, message):
    from seqlab.data import load_dataset

    with pytest.raises(ValueError, match=message):
        build_model("arx", load_dataset("sine", **SINE), options)


def test_collinear_lags_without_ridge_fail_before_anything_is_written(tmp_path):
    spec = ExperimentSpec("sine", "arx", data_options={**SINE, "noise": 0.0}, model_options={"ridge": 0.0})
    with pytest.raises(ValueError, match="collinear"):  # a pure sine obeys a two-term recurrence
        run_experiment(spec, store=RunStore(tmp_path))
    assert not any(tmp_path.iterdir())
