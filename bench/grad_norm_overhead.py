"""What reporting grad_norm and learning_rate at every batch costs: TaskModel beside a plain keras.Model.

    python -m bench.grad_norm_overhead [--epochs 6] [--model lstm] [--schedule cosine]

Builds the energy forecaster once, then trains two copies with the same
weights in the same process: seqlab's ``TaskModel`` (its train step also
takes the gradient's global norm and the optimizer's current rate, a
schedule's value with ``--schedule cosine``) and a plain functional
``keras.Model`` over the same layers (Keras's own train step), both with the
spec's optimizer. Prints the median seconds per epoch (the first epoch, which
traces, is skipped) and the ratio.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from seqlab.data import load_dataset  # noqa: E402
from seqlab.models import build_model  # noqa: E402
from seqlab.training import ExperimentSpec  # noqa: E402
from seqlab.training.optimizer import make_optimizer, total_steps  # noqa: E402

BATCH_SIZE = 64


def seconds_per_epoch(model: keras.Model, data, epochs: int, spec: ExperimentSpec) -> float:
    train = data.splits["train"]
    ends = []

    class Timer(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            ends.append(time.monotonic())

    model.compile(make_optimizer(spec, total_steps(spec, len(train.y))), "mse", metrics=["mae"])
    model.fit(train.x, train.y, epochs=epochs, batch_size=BATCH_SIZE, verbose=0, callbacks=[Timer()])
    return float(np.median(np.diff(ends)))


def plain_and_ours(model: str, epochs: int, schedule: str) -> tuple[float, float]:
    """Median s / epoch of the energy ``model`` with Keras's train step, then with seqlab's (the same weights)."""
    data = load_dataset("energy")
    spec = ExperimentSpec("energy", model, epochs=epochs, batch_size=BATCH_SIZE, schedule=schedule,
                          warmup_steps=100 if schedule == "cosine" else 0)
    keras.utils.set_random_seed(0)
    ours = build_model(model, data)
    plain = keras.Model(ours.inputs, ours.outputs)  # the same layers, Keras's train step
    weights = ours.get_weights()
    plain_s = seconds_per_epoch(plain, data, epochs, spec)
    ours.set_weights(weights)
    return plain_s, seconds_per_epoch(ours, data, epochs, spec)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--model", default="lstm")
    parser.add_argument("--schedule", default="constant", choices=("constant", "cosine"))
    args = parser.parse_args()
    plain_s, ours_s = plain_and_ours(args.model, args.epochs, args.schedule)
    print(f"{'':<40}{'s / epoch':>10}")
    print(f"{'keras.Model (Keras train_step)':<40}{plain_s:>10.3f}")
    print(f"{'seqlab TaskModel (+ grad_norm, rate)':<40}{ours_s:>10.3f}")
    print(f"overhead: {100 * (ours_s / plain_s - 1):+.1f} %")


if __name__ == "__main__":
    main()
