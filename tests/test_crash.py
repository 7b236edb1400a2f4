"""A training process killed at the worst moments leaves the run store consistent."""

import signal
import subprocess
import sys
import time
from pathlib import Path

from seqlab.runs import RunStore
from seqlab.scratch import SCRATCH_PREFIX, STORE_MARK
from tests.test_runs import copy_run

REPO = Path(__file__).resolve().parents[1]


def start_training(root: Path, *options: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "seqlab", "train", "--dataset", "sine", "--model", "lstm",
               "--runs-dir", str(root), *options]
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def kill(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    process.stderr.close()


def assert_consistent_after_crash(store: RunStore, survivor: str) -> None:
    leftovers = sorted(p.name for p in store.root.iterdir() if p.name.startswith(SCRATCH_PREFIX))
    assert [r.run_id for r in store.list()] == [survivor]
    assert store.broken() == {}
    assert sorted(store.sweep(grace_seconds=0)) == leftovers
    assert sorted(p.name for p in store.root.iterdir() if p.name != STORE_MARK) == [survivor]
    assert store.read(survivor).exists()


def test_killed_mid_epoch(trained_run, tmp_path):
    store = RunStore(tmp_path / "runs")
    store.root.mkdir()
    copy_run(trained_run, store.root)
    process = start_training(store.root, "--epochs", "50")
    deadline = time.monotonic() + 180
    for line in process.stderr:  # "epoch 1/50 ..." ends the first epoch: kill during the second
        if "epoch 1/" in line or time.monotonic() > deadline:
            break
    assert process.poll() is None, "training ended before it could be killed"
    kill(process)
    assert_consistent_after_crash(store, trained_run.run_id)


def test_killed_mid_save(trained_run, tmp_path):
    store = RunStore(tmp_path / "runs")
    store.root.mkdir()
    copy_run(trained_run, store.root)
    process = start_training(store.root, "--epochs", "1", "--set", "length=600")
    deadline = time.monotonic() + 180
    while not any(p.name.startswith(SCRATCH_PREFIX) for p in store.root.iterdir()):
        assert process.poll() is None and time.monotonic() < deadline, "no save began"
        time.sleep(0.005)
    kill(process)
    assert any(p.name.startswith(SCRATCH_PREFIX) for p in store.root.iterdir()), "killed after the save finished"
    assert_consistent_after_crash(store, trained_run.run_id)
