"""What the CLI writes, when it cannot: a store no run could be written to, a disk that fills while saving or
exporting. Each exits 2 with one ``error:`` line and leaves nothing behind."""

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from seqlab.cli import main
from seqlab.training.jobs import JobManager
from tests.cli_store import copy_run

REPO = Path(__file__).resolve().parents[1]
TRAIN = ["train", "--dataset", "sine", "--model", "mlp", "--epochs", "1", "--set", "units=4", "--set", "layers=1",
         "--set", "length=200", "--set", "lookback=12", "--set", "horizon=4"]


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_train_into_a_store_no_run_could_be_written_to_fails_before_training(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(JobManager, "submit", lambda *args, **kwargs: pytest.fail("training started"))
    (tmp_path / "a_file").write_text("not a folder")
    assert main([*TRAIN, "--runs-dir", str(tmp_path / "a_file" / "runs")]) == 2
    assert "a_file" in one_error_line(capsys)

    # Read-only (a read-only mount, or mode 000 for anyone but root, who the tests run as): as access(2) answers.
    read_only = tmp_path / "read_only"
    read_only.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: Path(path) != read_only and real_access(path, mode))
    assert main([*TRAIN, "--runs-dir", str(read_only / "runs")]) == 2
    assert "not writable" in one_error_line(capsys)
    assert sorted(tmp_path.iterdir()) == [tmp_path / "a_file", read_only] and not any(read_only.iterdir())


def test_a_disk_that_fills_while_saving_exits_2_and_keeps_nothing(capsys, monkeypatch, tmp_path):
    import tensorflow as tf

    from seqlab.training import experiment

    def full(model, data, path):  # TensorFlow's own writes report a full disk as an OpError, not an OSError
        path.mkdir()
        (path / "saved_model.pb").write_bytes(b"\x08half")  # a truncated file, as a full disk leaves it
        raise tf.errors.ResourceExhaustedError(None, None, f"{path}/saved_model.pb; No space left on device")

    real_get_task = experiment.get_task
    monkeypatch.setattr(experiment, "get_task", lambda name: dataclasses.replace(real_get_task(name), export=full))
    root = tmp_path / "runs"
    assert main([*TRAIN, "--runs-dir", str(root)]) == 2
    err = capsys.readouterr().err  # the progress bar, then one error line
    assert [line for line in err.splitlines() if "error" in line] == [err.splitlines()[-1]], err
    assert err.splitlines()[-1].startswith("error: Could not write run ") and "Traceback" not in err
    assert "No space left on device" in err and str(root) in err
    assert not root.exists()  # no run, no scratch folder, not even the store folder this call made


def test_set_given_twice_must_agree(capsys, runs_dir):
    # " units" is units: the CLI trims keys, so the two once disagreed silently (the last won).
    assert main(["train", "--dataset", "sine", "--model", "mlp", "--set", "units=8", "--set", " units =16"]) == 2
    assert "--set units=8 and --set units=16 disagree" in one_error_line(capsys)


@pytest.mark.parametrize("fmt", ["zip", "keras", "savedmodel"])
def test_export_under_a_full_disk_leaves_nothing_and_names_the_destination(tmp_path, trained_run, fmt):
    copy_run(tmp_path / "store", trained_run, "good")
    out = tmp_path / "out"
    to = out / f"model.{fmt}"
    # A file size limit (ulimit -f) of 2 KB: with SIGXFSZ ignored, a write past it fails with EFBIG.
    limited = ("import resource, signal, sys\n"
               "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
               "resource.setrlimit(resource.RLIMIT_FSIZE, (2048, resource.RLIM_INFINITY))\n"
               "from seqlab.cli import main\n"
               f"sys.exit(main(['export', 'good', '--format', '{fmt}', '--to', {str(to)!r}, "
               f"'--runs-dir', {str(tmp_path / 'store')!r}]))\n")
    done = subprocess.run([sys.executable, "-c", limited], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"error: Could not export run 'good' to {to}: File too large"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not out.exists()  # no partial export, no staging file, not even the folder it made
