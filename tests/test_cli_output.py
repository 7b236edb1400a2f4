"""What the CLI prints: strict JSON, metrics in the dashboard's units, broken runs, delete, Ctrl-C handling."""

import io
import json
import math
import shlex
import signal
import sys

import numpy as np
import pytest

from seqlab.cli import CtrlC, main, metrics_table, print_json, scores_line
from seqlab.runs import RunStore
from tests.cli_store import copy_run

NAN_METRICS = {"model": {"mae": float("nan"), "rmse": float("inf"), "mape": 5.0},
               "baselines": {"naive": {"mae": 1.0, "rmse": float("-inf"), "mape": float("nan")}}}


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def strict_loads(text: str):
    """json.loads that refuses NaN and Infinity, as JavaScript's JSON.parse and jq do."""
    def refuse(token):
        raise ValueError(f"non-standard JSON token {token}")

    return json.loads(text, parse_constant=refuse)


def test_runs_json_is_strict_with_nan_and_infinite_metrics(capsys, trained_run, tmp_path):
    copy_run(tmp_path, trained_run, "diverged", metrics=NAN_METRICS)
    code, out, err = run_cli(capsys, "runs", "--json", "--runs-dir", str(tmp_path))
    assert code == 0, err
    listing = strict_loads(out)
    (run,) = listing["runs"]
    assert run["metrics"]["model"] == {"mae": None, "rmse": None, "mape": 5.0}
    assert run["metrics"]["baselines"]["naive"] == {"mae": 1.0, "rmse": None, "mape": None}
    code, out, _ = run_cli(capsys, "runs", "--runs-dir", str(tmp_path))
    assert code == 0 and "MAE – " in out and "MAPE 5 %" in out


def test_print_json_turns_every_non_finite_float_into_null(capsys):
    print_json({"a": [1.5, math.nan, {"b": -math.inf}], "c": (math.inf, 2, True), "d": np.float32("nan"),
                "e": np.float32(0.5)})
    assert strict_loads(capsys.readouterr().out) == {"a": [1.5, None, {"b": None}], "c": [None, 2, True],
                                                     "d": None, "e": 0.5}


def test_metrics_show_in_the_dashboards_units(trained_run, tmp_path):
    energy = copy_run(tmp_path, trained_run, "gw", meta={"units": {"y": "GW"}},
                      metrics={"model": {"mae": 0.21, "mape": 6.39, "rmse": 0.29},
                               "baselines": {"seasonal_naive_day": {"mae": 0.25, "mape": 7.41, "rmse": 0.33}}})
    assert scores_line(energy) == "MAE 0.21 GW  RMSE 0.29 GW  MAPE 6.39 %"
    header, model, baseline = metrics_table(energy).splitlines()
    assert header.split() == ["MAE", "(GW)", "RMSE", "(GW)", "MAPE", "(%)"]
    assert model.split() == ["model", "0.21", "0.29", "6.39"] and baseline.split()[0] == "seasonal_naive_day"

    digits = copy_run(tmp_path, trained_run, "acc", meta={"task": "classify"},
                      metrics={"model": {"accuracy": 0.931, "cross_entropy": 0.25},
                               "baselines": {"majority": {"accuracy": 0.1, "cross_entropy": 2.3}}})
    assert scores_line(digits) == "accuracy 93.1 %  cross-entropy 0.25 nats"
    header, model, _ = metrics_table(digits).splitlines()
    assert "accuracy (%)" in header and "cross-entropy (nats)" in header
    assert model.split()[1] == "93.1"


def test_runs_lists_broken_runs_on_stderr_and_in_json(capsys, trained_run, tmp_path):
    copy_run(tmp_path, trained_run, "good")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "meta.json").write_text("[1, 2]")
    code, out, err = run_cli(capsys, "runs", "--runs-dir", str(tmp_path))
    assert code == 0 and out.startswith("good ")
    assert err.startswith("broken: junk: ") and "python -m seqlab delete junk" in err
    assert len(err.strip().splitlines()) == 1
    code, out, _ = run_cli(capsys, "runs", "--json", "--runs-dir", str(tmp_path))
    listing = strict_loads(out)
    assert [r["run_id"] for r in listing["runs"]] == ["good"]
    assert [b["run_id"] for b in listing["broken"]] == ["junk"] and listing["broken"][0]["reason"]


def test_delete_readable_and_broken_runs_with_yes(capsys, trained_run, tmp_path):
    copy_run(tmp_path, trained_run, "good")
    (tmp_path / "junk").mkdir()
    for run_id in ("good", "junk"):
        code, out, err = run_cli(capsys, "delete", run_id, "--yes", "--runs-dir", str(tmp_path))
        assert code == 0 and out.strip() == f"deleted {run_id}", err
    assert RunStore(tmp_path).scan() == ([], {})


def test_delete_takes_the_command_runs_suggests_for_a_folder_whose_name_is_no_run_id(capsys, trained_run, tmp_path):
    copy_run(tmp_path, trained_run, "good")
    (tmp_path / "my run (copy)").mkdir()  # a copy made by hand
    code, _, err = run_cli(capsys, "runs", "--runs-dir", str(tmp_path))
    (line,) = [line for line in err.splitlines() if line.startswith("broken: my run (copy):")]
    command = shlex.split(line.split("(remove it: ", 1)[1].removesuffix(")"))
    assert code == 0 and command[:4] == ["python", "-m", "seqlab", "delete"], line
    code, out, err = run_cli(capsys, *command[3:], "--yes", "--runs-dir", str(tmp_path))
    assert code == 0 and out.strip() == "deleted my run (copy)", err
    assert [r.run_id for r in RunStore(tmp_path).list()] == ["good"] and RunStore(tmp_path).broken() == {}


def test_delete_asks_on_a_terminal_and_refuses_without_one(capsys, monkeypatch, trained_run, tmp_path):
    copy_run(tmp_path, trained_run, "good")
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))  # not a TTY
    code, _, err = run_cli(capsys, "delete", "good", "--runs-dir", str(tmp_path))
    assert code == 2 and "add --yes" in err and (tmp_path / "good").is_dir()

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    code, out, _ = run_cli(capsys, "delete", "good", "--runs-dir", str(tmp_path))
    assert code == 0 and "not deleted" in out and (tmp_path / "good").is_dir()
    monkeypatch.setattr(sys, "stdin", Terminal("yes\n"))
    code, out, _ = run_cli(capsys, "delete", "good", "--runs-dir", str(tmp_path))
    assert code == 0 and "delete run good (completed)" in out and not (tmp_path / "good").exists()


def test_export_keras_gets_its_suffix(capsys, trained_run, tmp_path):
    copy_run(tmp_path / "store", trained_run, "good")
    code, out, err = run_cli(capsys, "export", "good", "--format", "keras", "--to", str(tmp_path / "model"),
                             "--runs-dir", str(tmp_path / "store"))
    assert code == 0, err
    assert (tmp_path / "model.keras").is_file() and out.strip().endswith("model.keras")


class FakeJob:
    def __init__(self):
        self.cancelled = 0
        self.cancel_flag = self

    def is_set(self):
        return self.cancelled > 0

    def cancel(self):
        self.cancelled += 1


def test_ctrl_c_cancels_once_then_only_answers(capsys):
    # Python's own handler first: a cancelled CLI run tested in this process before leaves SIGINT ignored.
    outside = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        job = FakeJob()
        with CtrlC() as ctrl_c:
            signal.raise_signal(signal.SIGINT)  # no KeyboardInterrupt: the handler only counts
            ctrl_c.news(job)
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGINT)
            ctrl_c.news(job)
        err = capsys.readouterr().err
        assert job.cancelled == 1
        assert err.count("cancelling after the current batch") == 1
        assert err.count("still saving the cancelled run, please wait") == 2
        with pytest.raises(KeyboardInterrupt):  # the previous handler is back
            signal.raise_signal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, outside)


def test_no_percentage_of_the_truth_for_a_series_that_crosses_zero():
    """sine crosses zero: the run leaves MAPE out, and the CLI's score line leaves sMAPE out with it."""
    from types import SimpleNamespace

    from seqlab.cli import scores_line

    metrics = {"model": {"mae": 0.1, "rmse": 0.2, "smape": 46.6, "mase": 0.5}}
    run = SimpleNamespace(metrics=metrics, meta=SimpleNamespace(task="forecast", units={}, target="y"))
    line = scores_line(run)
    assert "MAE" in line and "sMAPE" not in line
