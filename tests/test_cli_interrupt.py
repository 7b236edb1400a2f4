"""Ctrl-C: during ``train`` the first cancels, later ones (even during the final write) neither abort nor lose the
run; at any other moment, even while the modules load or the process ends, the exit is an interrupt's, never 0."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from seqlab.runs import RunStore
from seqlab.scratch import SCRATCH_PREFIX

REPO = Path(__file__).resolve().parents[1]


def wait_for(seen, what: str, log: Path, process: subprocess.Popen, timeout: float = 240) -> None:
    """Until ``seen()`` is true (``what`` names it for the failure)."""
    deadline = time.monotonic() + timeout
    while not seen():
        assert process.poll() is None, f"exited early: {log.read_text()[-2000:]}"
        assert time.monotonic() < deadline, f"no {what} in: {log.read_text()[-2000:]}"
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
            wait_for(lambda: "epoch 1/500" in log.read_text(errors="replace"), "first epoch", log, process)
            process.send_signal(signal.SIGINT)
            # The final write has begun: the model is in the store's scratch folder, the SavedModel still to come
            # (the CLI's phase line for the export shows only when it lasts a second: not a signal to wait on).
            wait_for(lambda: any((tmp_path / "runs").glob(f"{SCRATCH_PREFIX}*/*/model.keras")),
                     "model.keras being written", log, process)
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


def _ended_by_ctrl_c(code: str, tmp_path) -> subprocess.CompletedProcess:
    """``python -c code`` with Ctrl-C's default handling (a test runner may start its children ignoring it)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(REPO)},
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_ctrl_c_while_the_process_ends_is_an_interrupt_not_success(tmp_path):
    # After predict the process spends a second or two in TensorFlow's teardown; a Ctrl-C there exited 0. The
    # press is simulated from the last exit handler; `runs` stands in for predict (the same path, without the wait).
    code = ("import atexit, os, runpy, signal, sys, time\n"
            "atexit.register(lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(30)))\n"
            f"sys.argv = ['seqlab', 'runs', '--runs-dir', {str(tmp_path / 'runs')!r}]\n"
            "runpy.run_module('seqlab', run_name='__main__', alter_sys=True)\n")
    done = _ended_by_ctrl_c(code, tmp_path)
    assert done.returncode == -signal.SIGINT, done.stderr  # what a shell reports as 130
    assert "no runs in" in done.stdout  # the answer was out before the press
    assert "Traceback" not in done.stderr


def test_ctrl_c_while_the_modules_load_exits_130_without_a_traceback(tmp_path):
    code = ("import builtins, runpy, sys\n"
            "real = builtins.__import__\n"
            "def pressed(name, *args, **kwargs):\n"
            "    if name == 'seqlab.cli':\n"
            "        raise KeyboardInterrupt\n"
            "    return real(name, *args, **kwargs)\n"
            "builtins.__import__ = pressed\n"
            "sys.argv = ['seqlab', 'runs']\n"
            "runpy.run_module('seqlab', run_name='__main__', alter_sys=True)\n")
    done = _ended_by_ctrl_c(code, tmp_path)
    assert done.returncode == 130 and done.stderr.strip() == "interrupted", done.stderr
