import keras
import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.models import build_model, get_architecture
from seqlab.models.esn import fit_readout
from seqlab.training import ExperimentSpec, run_experiment

OPTIONS = {"units": 20, "spectral_radius": 0.9, "leak_rate": 0.5, "ridge": 1e-3}


def reservoir_states(cell, x):
    """The notes' leaky reservoir in NumPy, from z_0 = 0: the last state of every window."""
    V, B, b = cell.kernel.numpy(), cell.recurrent_kernel.numpy(), cell.bias.numpy()  # Keras layout: x V^T = x @ kernel
    z = np.zeros((len(x), cell.units))
    for t in range(x.shape[1]):
        z = (1 - cell.leak_rate) * z + cell.leak_rate * np.tanh(x[:, t] @ V + z @ B + b)
    return z


def test_the_readout_is_the_ridge_solution_not_a_gradient_fit(tiny):
    data = tiny["forecast"]
    model = build_model("esn", data, OPTIONS)
    model.compile("adam", "mse")
    reservoir_before = [w.numpy().copy() for w in model.get_layer("reservoir").weights]
    spec = ExperimentSpec("sine", "esn", model_options=OPTIONS)
    fit_readout(model, data, spec.resolved(), [])

    train = data.splits["train"]
    scaled = (train.x - data.scaler.mean) / data.scaler.std
    Z = np.concatenate([reservoir_states(model.get_layer("reservoir").cell, scaled), np.ones((len(scaled), 1))], axis=1)
    Y = (train.y - data.scaler.mean[0]) / data.scaler.std[0]  # what Dense(H) must output
    penalty = OPTIONS["ridge"] * np.eye(Z.shape[1])
    penalty[-1, -1] = 0  # the bias is not shrunk
    W = np.linalg.solve(Z.T @ Z + penalty, Z.T @ Y)
    kernel, bias = model.get_layer("forecast").get_weights()
    np.testing.assert_allclose(kernel, W[:-1], atol=2e-3)
    np.testing.assert_allclose(bias, W[-1], atol=2e-3)
    for before, after in zip(reservoir_before, model.get_layer("reservoir").weights):
        np.testing.assert_array_equal(before, after.numpy())  # B, V and b stay as drawn


def test_a_run_reports_one_closed_form_step_like_any_fit(runs_dir):
    events = []
    spec = ExperimentSpec("adding", "esn", data_options={"length_T": 6, "samples": 200}, model_options=OPTIONS,
                          epochs=7)
    run = run_experiment(spec, on_event=events.append, savedmodel=False)
    kinds = [e["type"] for e in events]
    assert events[kinds.index("start")] == {"type": "start", "epochs": 1, "steps_per_epoch": 1,
                                            "device": run.meta.device}
    assert kinds.count("batch") == 1 and kinds.count("epoch") == 1 and kinds[-1] == "end"
    assert "val_loss" in events[kinds.index("epoch")] and "grad_norm" not in events[kinds.index("batch")]
    assert run.metrics["model"]["mse"] < run.metrics["baselines"]["mean"]["mse"]
    again = run.load_model()
    x = np.zeros((2, 6, 2), "float32")
    np.testing.assert_allclose(again.predict(x, verbose=0), keras.saving.load_model(run.keras_path).predict(x,
                                                                                                            verbose=0))


@pytest.mark.parametrize(
    "options, message",
    [({"spectral_radius": 0.0}, "spectral_radius"), ({"units": 0}, "units"), ({"ridge": -1.0}, "ridge"),
     ({"leak_rate": 1.5}, "leak_rate")],
)
def test_bad_reservoir_options_name_the_option(tiny, options, message):
    with pytest.raises(ValueError, match=message):
        build_model("esn", tiny["forecast"], options)


def test_only_real_valued_tasks():
    with pytest.raises(ValueError, match="does not fit a 'classify' task"):
        get_architecture("esn", "classify")
    with pytest.raises(ValueError, match="tbptt applies to gradient training"):
        ExperimentSpec("sine", "esn", tbptt=[5, 5]).resolved()


@pytest.mark.parametrize(
    "limit, units, message",
    [
        ("SEQLAB_MAX_DATA_MB", 100,
         r"^The reservoir states of [\d,]+ training windows x 100 units would take \d+ MB, more than 1 MB "
         r"\(.*SEQLAB_MAX_DATA_MB.*\); use fewer units"),
        ("SEQLAB_MAX_WORK_SECONDS", 2000,
         r"^Running a reservoir of 2,000 units over [\d,]+ windows of 10 steps would take about \d+ s, more than "
         r"1 s \(.*SEQLAB_MAX_WORK_SECONDS.*\); use fewer units"),
    ],
)
def test_a_reservoir_past_the_limits_is_refused_before_it_is_drawn(monkeypatch, limit, units, message):
    data = load_dataset("sine", lookback=10)  # 1,381 training windows: 0.1 MB, but 3 MB of states at 100 units

    def never(*args, **kwargs):
        raise AssertionError("the reservoir was drawn before the check")

    monkeypatch.setattr("seqlab.layers.recurrent.ESN", never)
    monkeypatch.setenv(limit, "1")
    with pytest.raises(ValueError, match=message):
        build_model("esn", data, {"units": units})
