"""Time an epoch of the energy LSTM run, beside a bare Keras peer on the same data.

    python -m bench.energy_epoch [--epochs 15]

Prints: seconds per epoch for seqlab's run_experiment (events timed) and for a
plain keras.Sequential LSTM of the same shape fitted on the same windows
(scaled by hand), their ratio, and the test MAPE of the seqlab model beside the
naive and seasonal-naive baselines.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from seqlab.data import load_dataset  # noqa: E402
from seqlab.runs import RunStore  # noqa: E402
from seqlab.training import ExperimentSpec, run_experiment  # noqa: E402


def seqlab_epochs(epochs: int):
    events = []
    with tempfile.TemporaryDirectory() as root:
        run = run_experiment(ExperimentSpec("energy", "lstm", epochs=epochs), events.append, RunStore(root))
        ends = [e["elapsed"] for e in events if e["type"] == "epoch"]
    per_epoch = np.diff(ends)  # skip epoch 1: it includes tracing
    return float(np.median(per_epoch)), run.metrics


def keras_peer_epochs(epochs: int) -> float:
    data = load_dataset("energy")
    train, val = data.splits["train"], data.splits["val"]
    mean, std = data.scaler.mean, data.scaler.std
    scale = lambda x: (x - mean) / std  # noqa: E731
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input(data.input_shape), keras.layers.LSTM(64), keras.layers.Dense(data.horizon)])
    model.compile("adam", "mse", metrics=["mae"])
    times = []

    class Timer(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            times.append(time.monotonic())

    y_scale = lambda y: (y - mean[0]) / std[0]  # noqa: E731
    model.fit(scale(train.x), y_scale(train.y), validation_data=(scale(val.x), y_scale(val.y)),
              epochs=epochs, batch_size=64, verbose=0, callbacks=[Timer()])
    return float(np.median(np.diff(times)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=15)
    args = parser.parse_args()
    ours, metrics = seqlab_epochs(args.epochs)
    peer = keras_peer_epochs(min(args.epochs, 5))
    print(f"{'':<34}{'s / epoch':>10}")
    print(f"{'seqlab run_experiment (lstm)':<34}{ours:>10.2f}")
    print(f"{'bare keras.Sequential LSTM':<34}{peer:>10.2f}")
    print(f"ratio seqlab / keras: {ours / peer:.2f}")
    print(f"\ntest split, after {args.epochs} epochs:")
    rows = {"seqlab lstm": metrics["model"], **metrics["baselines"]}
    for name, m in rows.items():
        print(f"  {name:<24} MAPE {m['mape']:6.2f} %   MAE {m['mae']:.4f} GW   RMSE {m['rmse']:.4f} GW")


if __name__ == "__main__":
    main()
