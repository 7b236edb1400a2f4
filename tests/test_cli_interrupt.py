"""Ctrl-C during ``train``: the first cancels, later ones (even during the final write) neither abort nor lose the run."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from seqlab.runs import RunStore

REPO = Path(__file__).resolve().parents[1]


def wait_for(text: str, log: Path, process: subprocess.Popen, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while text not in log.read_text(errors="replace"):
        assert process.poll() is None, f"exited early: {log.read_text()[-2000:]}"
        assert time.monotonic() < deadline, f"no {text!r} in: {log.read_text()[-2000:]}"
        time.sleep(0.05)


def test_a_second_ctrl_c_while_saving_keeps_the_cancelled_run(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "SEQLAB_RUNS_DIR": str(tmp_path / "runs")}
    log = tmp_path / "stderr.txt"
    with open(log, "w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "seqlab", "train", "--dataset", "sine", "--model", "lstm", "--epochs", "500",
             "--set", "units=4", "--set", "length=600", "--set", "lookback=12", "--set", "horizon=2", "--json"],
            stdout=subprocess.PIPE, stderr=stderr, text=True, env=env, cwd=tmp_path,
        )
        try:
            wait_for("epoch 1/500", log, process)
            process.send_signal(signal.SIGINT)
            wait_for("exporting the TensorFlow SavedModel", log, process)  # the final write has begun
            process.send_signal(signal.SIGINT)
            time.sleep(0.3)
            process.send_signal(signal.SIGINT)
            out, _ = process.communicate(timeout=240)
        finally:
            if process.poll() is None:
                process.kill()
    err = log.read_text()
    assert process.returncode == 0, err[-2000:]
    assert "cancelling after the current batch" in err
    # The second press lands while saving; the third may land after the run is written (then it is ignored).
    assert 1 <= err.count("still saving the cancelled run, please wait") <= 2
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    (run,) = RunStore(tmp_path / "runs").list()
    assert run.status == "cancelled" and run.meta.epochs_run < 500
    assert f'"run_id": "{run.run_id}"' in out.splitlines()[-1]
