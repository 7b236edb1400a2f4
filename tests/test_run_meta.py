import dataclasses
import json

import pytest

from seqlab.run_meta import RunMeta, check_metrics
from seqlab.tasks import check_model_io
from seqlab.training.spec import ExperimentSpec, check_spec

META = {
    "task": "forecast", "status": "completed", "dataset": "sine", "model": "lstm", "input_shape": [12, 1],
    "features": ["y"], "target": "y", "units": {"y": ""}, "lookback": 12, "horizon": 3, "epochs_run": 1,
    "train_seconds": 1.9, "parameters": 219, "device": "CPU (2 cores)", "created": "2026-11-23T10:35:56+00:00",
    "versions": {"keras": "3.15.1", "python": "3.11.7", "seqlab": "0.1.0", "tensorflow": "2.21.0"},
}


def test_a_meta_json_of_today_loads_with_defaults_filled_once():
    meta = RunMeta.from_dict(META)  # no "classes": a forecast run's meta.json omitted it
    assert meta.classes is None and meta.lookback == 12 and meta.units == {"y": ""}
    assert meta.inputs is None and meta.assets == [] and meta.input_dtype == "float32"  # older runs: one float input
    assert RunMeta.from_dict(json.loads(json.dumps(meta.to_dict()))) == meta
    with pytest.raises(dataclasses.FrozenInstanceError):
        meta.status = "completed"


def test_the_meta_of_a_trained_run_round_trips(trained_run):
    assert RunMeta.from_dict(json.loads((trained_run.path / "meta.json").read_text())) == trained_run.meta


@pytest.mark.parametrize(
    "change, field",
    [
        ({"task": 3}, "task"),
        ({"input_shape": [12.0, 1]}, "input_shape"),
        ({"features": "y"}, "features"),
        ({"units": {"y": 1}}, "units"),
        ({"lookback": "12"}, "lookback"),
        ({"classes": ["a", 2]}, "classes"),
        ({"train_seconds": "fast"}, "train_seconds"),
        ({"versions": []}, "versions"),
    ],
)
def test_a_wrong_type_names_the_field(change, field):
    with pytest.raises(ValueError, match=f"meta.json: {field} must be"):
        RunMeta.from_dict({**META, **change})


def test_a_model_that_does_not_fit_the_run_is_refused():
    meta = RunMeta.from_dict(META)
    check_model_io(meta, (None, 12, 1), (None, 3), "m")
    with pytest.raises(ValueError, match=r"takes inputs \(None, 50, 1\).*needs inputs \(None, 12, 1\)"):
        check_model_io(meta, (None, 50, 1), (None, 3), "m")
    with pytest.raises(ValueError, match=r"outputs \(None, 3\)"):
        check_model_io(meta, (None, 12, 1), (None, 4), "m")
    label = dataclasses.replace(meta, task="label", classes=["a", "b"], horizon=12)
    check_model_io(label, (None, 12, 1), (None, 12, 2), "m")
    with pytest.raises(ValueError, match="does not belong to this run"):
        check_model_io(label, (None, 12, 1), (None, 12, 3), "m")


def test_spec_fields_follow_experiment_spec():
    check_spec(ExperimentSpec("sine", "lstm").to_dict())
    with pytest.raises(ValueError, match="unknown field"):
        check_spec({"dataset": "sine", "model": "lstm", "epoch": 3})
    with pytest.raises(ValueError, match="data_options must be a JSON object"):
        check_spec({"dataset": "sine", "model": "lstm", "data_options": [1]})


def test_metrics_shape():
    check_metrics({"model": {"mae": 1.0, "mape": None}, "baselines": {"naive": {"mae": 2}}})
    with pytest.raises(ValueError, match=r"baselines\['naive'\]"):
        check_metrics({"model": {"mae": 1.0}, "baselines": {"naive": [2]}})
    with pytest.raises(ValueError, match="must map metric names to numbers"):
        check_metrics({"model": {"mae": True}, "baselines": {}})
