"""Data parallelism (``devices``): one run's batches split over two CPU devices give one device's losses.

Each backend runs in a fresh process, where the two devices are made before the runtime starts: two
logical CPUs under TensorFlow (``MirroredStrategy``), two host devices under JAX (``DataParallel``).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from seqlab.training import ExperimentSpec

SCRIPT = """
import json, os, sys
if os.environ["KERAS_BACKEND"] == "tensorflow":
    import tensorflow as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
from seqlab.runs import RunStore
from seqlab.training import ExperimentSpec, run_experiment

spec = ExperimentSpec("sine", "gru", model_options={"units": 4}, epochs=2, batch_size=16, learning_rate=1e-2,
                      data_options={"length": 200, "lookback": 12, "horizon": 4})
runs = {}
for devices in (1, 2):
    run = run_experiment(spec.with_overrides({"devices": devices}), store=RunStore(sys.argv[1]), savedmodel=False)
    runs[devices] = {"batch_loss": [b["batch_loss"] for b in run.history["batch"]],
                     "val_loss": [e["val_loss"] for e in run.history["epoch"]],
                     "mae": run.metrics["model"]["mae"], "device": run.meta.device, "status": run.status}
print(json.dumps(runs))
"""


def run_both(backend: str, tmp_path: Path) -> dict:
    env = {**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "3",
           "XLA_FLAGS": "--xla_force_host_platform_device_count=2", "SEQLAB_RUNS_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True,
                          env=env, timeout=300, cwd=Path(__file__).parents[2])
    assert done.returncode == 0, done.stderr[-3000:]
    return {int(k): v for k, v in json.loads(done.stdout.strip().splitlines()[-1]).items()}


@pytest.mark.parametrize("backend", ["tensorflow", "jax"])
def test_two_devices_train_as_one(backend, tmp_path):
    runs = run_both(backend, tmp_path)
    one, two = runs[1], runs[2]
    assert one["status"] == two["status"] == "completed"
    assert two["device"].startswith("2× CPU, data parallel") and one["device"].startswith("1× CPU")
    assert len(two["batch_loss"]) == len(one["batch_loss"]) == 2 * (len(one["batch_loss"]) // 2) > 2
    np.testing.assert_allclose(two["batch_loss"], one["batch_loss"], rtol=2e-4)
    np.testing.assert_allclose(two["val_loss"], one["val_loss"], rtol=2e-4)
    assert two["mae"] == pytest.approx(one["mae"], rel=2e-4)


def test_a_batch_must_split_evenly_and_a_fit_must_be_model_fit():
    with pytest.raises(ValueError, match="batch_size 30 does not split evenly over 4 devices"):
        ExperimentSpec("sine", "gru", batch_size=30, devices=4).resolved()
    with pytest.raises(ValueError, match="truncated BPTT"):
        ExperimentSpec("sine", "gru", tbptt=[5, 10], devices=2).resolved()
