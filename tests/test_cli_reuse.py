"""``python -m seqlab train --preset NAME`` reuses the runs trained before with the same identity, unless
``--retrain``."""

import json

import pytest

from seqlab.runs import RunStore
from seqlab.training import ExperimentSpec
from seqlab.training.presets import PRESETS, Preset
from tests.test_cli import run_cli

SPEC = ExperimentSpec("sine", "mlp", data_options={"length": 300, "lookback": 12, "horizon": 4},
                      model_options={"units": 4, "layers": 1}, epochs=1, batch_size=32)


@pytest.fixture
def tiny_preset(monkeypatch):
    preset = Preset(name="tiny-reuse", title="Tiny", description="One tiny run.", specs=(SPEC,))
    monkeypatch.setitem(PRESETS, preset.name, preset)
    return preset


def test_a_preset_trained_before_is_reused_unless_retrain(capsys, runs_dir, tiny_preset):
    code, out, err = run_cli(capsys, "train", "--preset", "tiny-reuse", "--json")
    assert code == 0, err
    first = json.loads(out.strip().splitlines()[-1])["runs"][0]
    assert not first["reused"] and "reusing" not in err

    code, out, err = run_cli(capsys, "train", "--preset", "tiny-reuse")
    assert code == 0, err
    created = RunStore(runs_dir).read(first["run_id"]).meta.created
    assert f"reusing run {first['run_id']} (trained {created}" in err and "--retrain" in err
    assert f"run {first['run_id']} 'tiny-reuse' (completed) reused from" in out
    assert len(RunStore(runs_dir).list()) == 1  # nothing trained

    code, out, err = run_cli(capsys, "train", "--preset", "tiny-reuse", "--set", "seed=1", "--json")
    assert code == 0 and not json.loads(out.strip().splitlines()[-1])["runs"][0]["reused"]  # another seed trains

    code, out, err = run_cli(capsys, "train", "--preset", "tiny-reuse", "--retrain", "--json")
    assert code == 0, err
    again = json.loads(out.strip().splitlines()[-1])["runs"][0]
    assert not again["reused"] and again["run_id"] != first["run_id"] and "reusing" not in err
    assert len(RunStore(runs_dir).list()) == 3


def test_a_plain_train_always_trains(capsys, runs_dir):
    args = ["train", "--dataset", "sine", "--model", "mlp", "--epochs", "1", "--set", "units=4", "--set", "length=300",
            "--set", "lookback=12", "--json"]
    for _ in range(2):
        code, out, err = run_cli(capsys, *args)
        assert code == 0 and not json.loads(out.strip().splitlines()[-1])["reused"], err
    assert len(RunStore(runs_dir).list()) == 2
    code, _, err = run_cli(capsys, *args, "--retrain")
    assert code == 2 and "--retrain applies to --preset" in err
