import json
import threading

import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.models import build_model
from seqlab.runs import RunStore
from seqlab.training import ExperimentSpec, run_experiment
from seqlab.training.optimizer import make_optimizer

TINY = dict(model_options={"units": 4}, data_options={"length": 400, "lookback": 12, "horizon": 4}, batch_size=32)


def test_run_folder_holds_everything(trained_run):
    files = {p.name for p in trained_run.path.iterdir()}
    assert {"spec.json", "meta.json", "metrics.json", "history.json", "predictions.npz",
            "model.keras", "savedmodel"} <= files
    meta = trained_run.meta
    assert meta.status == "completed" and meta.task == "forecast"
    assert meta.features == ["y"] and meta.lookback == 50 and meta.horizon == 10
    assert meta.device.startswith(("CPU", "1× GPU")) and "tensorflow" in meta.versions
    assert set(trained_run.metrics["model"]) == {"mae", "rmse", "smape", "mase"}  # the sine crosses zero: no MAPE
    assert len(trained_run.metrics["per_step"]["model"]["mae"]) == meta.horizon
    assert {"naive", "seasonal_naive_period"} <= set(trained_run.metrics["baselines"])
    assert len(trained_run.history["batch"]) > 1 and len(trained_run.history["epoch"]) == 1
    predictions = trained_run.predictions()
    assert predictions["y_pred"].shape == predictions["y_true"].shape


def test_metrics_are_computed_from_the_stored_predictions(trained_run):
    p = trained_run.predictions()
    mae = float(np.mean(np.abs(p["y_pred"].astype("float64") - p["y_true"])))
    assert trained_run.metrics["model"]["mae"] == pytest.approx(mae, rel=1e-5)


def test_events_and_batch_loss_recovery(runs_dir):
    events = []
    run_experiment(ExperimentSpec("sine", "mlp", epochs=2, **TINY), on_event=events.append)
    kinds = [e["type"] for e in events]
    assert kinds[:3] == ["status", "status", "start"] and kinds[-1] == "end" and kinds.count("epoch") == 2
    batches = [e for e in events if e["type"] == "batch" and e["epoch"] == 1]
    # The running mean of the recovered batch losses is what Keras reported.
    running = np.cumsum([b["batch_loss"] for b in batches]) / np.arange(1, len(batches) + 1)
    np.testing.assert_allclose(running, [b["loss"] for b in batches], rtol=1e-4)
    assert RunStore().list()[0].run_id == events[-1]["run_id"]


def test_training_learns_the_sine(runs_dir):
    spec = ExperimentSpec("sine", "mlp", epochs=20, learning_rate=1e-2, **TINY)
    run = run_experiment(spec.with_overrides({"units": 16}))
    # The noise (sd 0.1) bounds any forecast's MAE near 0.08; naive is far worse.
    assert run.metrics["model"]["mae"] < 0.5 * run.metrics["baselines"]["naive"]["mae"]


def test_cancel_writes_a_consistent_cancelled_run(runs_dir):
    cancel = threading.Event()
    cancel.set()  # stop after the very first batch
    run = run_experiment(ExperimentSpec("sine", "gru", epochs=50, **TINY), cancel=cancel)
    assert run.status == "cancelled" and run.meta.epochs_run == 1
    assert len(run.history["batch"]) == 1
    assert json.loads((run.path / "meta.json").read_text())["status"] == "cancelled"


def test_same_seed_same_result(runs_dir):
    a = run_experiment(ExperimentSpec("sine", "lstm", epochs=1, seed=3, **TINY))
    b = run_experiment(ExperimentSpec("sine", "lstm", epochs=1, seed=3, **TINY))
    assert a.metrics["model"]["mae"] == pytest.approx(b.metrics["model"]["mae"], rel=1e-5)


def test_a_bad_spec_fails_before_anything_is_written(runs_dir):
    with pytest.raises(ValueError, match="longer than the shortest split"):
        run_experiment(ExperimentSpec("sine", "mlp", data_options={"lookback": 1500}))
    assert not runs_dir.exists() or not any(runs_dir.iterdir())


def test_an_unwritable_signing_key_fails_before_training(runs_dir, tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("SEQLAB_HOME", str(blocker / "seqlab"))
    events = []
    with pytest.raises(ValueError, match="set SEQLAB_HOME"):
        run_experiment(ExperimentSpec("sine", "mlp", epochs=1), on_event=events.append)
    assert not any(e["type"] == "batch" for e in events)  # refused before the first batch
    assert not runs_dir.exists() or not any(runs_dir.iterdir())


def test_clip_value_bounds_every_weight_step():
    data = load_dataset("adding", length_T=5, samples=40)
    model = build_model("simple_rnn", data, {"units": 4})
    spec = ExperimentSpec("adding", "simple_rnn", optimizer="sgd", learning_rate=1.0, clip_value=1e-3)
    model.compile(make_optimizer(spec), "mse")
    before = model.get_weights()
    x, y = data.splits["train"].x[:16], data.splits["train"].y[:16]
    logs = model.train_on_batch(x, y * 10, return_dict=True)
    step = max(np.abs(a - b).max() for a, b in zip(model.get_weights(), before))
    # SGD moves each weight by lr * clipped gradient: at most 1e-3, here reached.
    assert step == pytest.approx(1e-3, rel=1e-4) and logs["grad_norm"] > 1e-2


@pytest.mark.parametrize(
    "dataset, model, data_options, keys, nested, baselines",
    [
        ("copy", "lstm", {"length": 2, "delay": 2, "samples": 60}, {"accuracy", "macro_f1", "cross_entropy"},
         {"per_class", "confusion"}, {"majority", "memoryless"}),
        ("adding", "gru", {"length_T": 5, "samples": 60}, {"mse", "rmse", "mae"}, set(), {"mean"}),
    ],
)
def test_every_task_writes_the_same_metrics_shape(runs_dir, dataset, model, data_options, keys, nested, baselines):
    run = run_experiment(ExperimentSpec(dataset, model, data_options=data_options, model_options={"units": 3},
                                        epochs=1, batch_size=16))
    assert set(run.metrics) == {"model", "baselines", *nested} and set(run.metrics["model"]) == keys
    assert all(set(run.metrics[part]["baselines"]) == baselines for part in nested)
    assert set(run.metrics["baselines"]) == baselines
    assert all(set(m) == keys for m in run.metrics["baselines"].values())
    predictions = run.predictions()
    assert predictions["y_pred"].shape == predictions["y_true"].shape
    assert {f"baseline_{b}" for b in baselines} <= set(predictions)
    assert (run.meta.classes is not None) == (dataset == "copy")


def _strict(text: str):
    def refuse(constant):
        raise AssertionError(f"{constant} in a JSON file")

    return json.loads(text, parse_constant=refuse)


def test_a_diverging_run_stops_and_is_marked_diverged(runs_dir):
    events = []
    # Plain SGD at learning rate 10 blows a recurrent net up within an epoch or two.
    spec = ExperimentSpec("sine", "gru", epochs=50, optimizer="sgd", learning_rate=10.0,
                          **{**TINY, "batch_size": 8})
    run = run_experiment(spec, on_event=events.append)
    assert run.status == "diverged" and run.meta.epochs_run < 50
    assert events[-1]["type"] == "end" and events[-1]["status"] == "diverged"
    batches = [e for e in events if e["type"] == "batch"]
    assert not np.isfinite(batches[-1]["loss"]) and all(np.isfinite(b["loss"]) for b in batches[:-1])
    # Written as strict JSON: the non-finite losses are null.
    history = _strict((run.path / "history.json").read_text())
    assert history["batch"][-1]["loss"] is None
    for name in ("meta", "metrics", "spec"):
        _strict((run.path / f"{name}.json").read_text())
    assert _strict((run.path / "meta.json").read_text())["status"] == "diverged"


def test_a_model_beyond_the_parameter_limit_is_refused_before_training(runs_dir, monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_PARAMETERS", "500")
    events = []
    with pytest.raises(ValueError, match=r"The model asks for more than 500 weights, the limit .*reduce units or layers"):
        run_experiment(ExperimentSpec("sine", "gru", epochs=1, **TINY).with_overrides({"units": 16}),
                       on_event=events.append)
    assert not any(e["type"] == "batch" for e in events)
    assert not runs_dir.exists() or not any(runs_dir.iterdir())


def test_a_run_traces_its_training_step_once(runs_dir, monkeypatch):
    """A variable first made inside the traced step (an optimizer slot, a metric's total) makes TensorFlow trace
    the step a second time: 30 % of a small model's training. The Python body runs once per trace."""
    from seqlab.models.task_model import TaskModel

    traced = []
    step = TaskModel.train_step
    monkeypatch.setattr(TaskModel, "train_step", lambda self, *data: traced.append(1) or step(self, *data))
    run_experiment(ExperimentSpec("sine", "mlp", epochs=2, **TINY))
    assert len(traced) == 1
