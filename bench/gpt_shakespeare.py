"""Character-level GPT on Shakespeare: held-out loss against wall-clock time from launch, ms per step, tokens/s.

    python -m bench.gpt_shakespeare [--steps 1500] [--learning-rate 2e-3] [--every 250] [--eval-windows 240] [--target 1.92]

Trains the ``gpt-shakespeare`` preset (nanoGPT's CPU network: 4 blocks, 4
heads, width 128, context 64, batch 12, dropout 0; AdamW 2e-3 with warm-up
and cosine decay over 1,500 steps) on the ``shakespeare`` dataset's fixed split
(first 90 % of the characters train, last 10 % held out), built as
``run_experiment`` builds it (``compiled_model``): XLA-compiled steps, ``steps_per_execution``
steps per call, windows drawn at random offsets of the token stream (``StreamBatches``).

Every ``--every`` steps the held-out loss (nats per character) is measured
on ``--eval-windows`` fixed held-out windows of 64 characters (nanoGPT's CPU
run estimates it on 20 batches of 12: 240 windows), and printed beside the
seconds since launch (imports, data, compiling and these evaluations
included, as nanoGPT's clock) and the seconds of training alone. At the end:
ms per training step, tokens per second, when the loss first reached
``--target``, and the loss on the whole held-out text.

The peer: PyTorch nanoGPT in its own CPU configuration (1e-3 over 2,000
steps) on the same text and split, ``python -m bench.nanogpt_peer``, run on
the same machine; it prints the same table. Timings on a shared machine vary:
run both more than once, one after the other.
"""

from __future__ import annotations

import time

LAUNCHED = time.perf_counter()  # before the imports: the clock starts at launch, as nanoGPT's

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import os  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from seqlab.data import load_dataset  # noqa: E402
from seqlab.models.task_model import EVAL_BATCH_SIZE  # noqa: E402
from seqlab.training.experiment import compiled_model  # noqa: E402
from seqlab.training.stream_batches import StreamBatches  # noqa: E402
from seqlab.training.presets import GPT_SHAKESPEARE  # noqa: E402


class Clock(keras.callbacks.Callback):
    """Seconds of training alone: the time inside ``fit``'s training batches, evaluations left out."""

    def __init__(self):
        super().__init__()
        self.training, self._since = 0.0, None

    def on_epoch_begin(self, epoch, logs=None):
        self._since = time.perf_counter()

    def on_test_begin(self, logs=None):  # fit validates at the end of each epoch
        self.training += time.perf_counter() - self._since


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=GPT_SHAKESPEARE.steps)
    parser.add_argument("--every", type=int, default=250, help="steps between held-out measurements")
    parser.add_argument("--eval-windows", type=int, default=240)
    parser.add_argument("--target", type=float, default=1.92, help="held-out nats per character to reach")
    parser.add_argument("--learning-rate", type=float, default=GPT_SHAKESPEARE.learning_rate, help="the peak rate")
    args = parser.parse_args()

    spec = dataclasses.replace(
        GPT_SHAKESPEARE, steps=args.steps, epochs=max(args.steps // args.every, 1), learning_rate=args.learning_rate
    ).resolved()
    keras.utils.set_random_seed(spec.seed)
    data = load_dataset(spec.dataset, **spec.data_options)
    train, val = data.splits["train"], data.splits["val"]
    held_out = np.random.default_rng(0).choice(len(val.y), min(args.eval_windows, len(val.y)), replace=False)
    model = compiled_model(spec, data)
    clock, curve = Clock(), []
    record = keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: curve.append(
            ((epoch + 1) * spec.steps // spec.epochs, time.perf_counter() - LAUNCHED, clock.training, logs["val_loss"])
        )
    )
    print(f"{model.count_params():,} parameters; {len(train.y):,} training windows of {data.lookback}; "
          f"measuring every {args.every} steps on {len(held_out)} held-out windows", flush=True)
    print(f"{'step':>6} {'s from launch':>14} {'s training':>11} {'val loss':>9}", flush=True)
    printer = keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: print(f"{curve[-1][0]:6d} {curve[-1][1]:14.1f} {curve[-1][2]:11.1f} "
                                               f"{curve[-1][3]:9.3f}", flush=True)
    )
    model.fit(
        StreamBatches(train, spec.batch_size, spec.steps // spec.epochs, spec.seed),
        validation_data=(val.x[held_out], val.y[held_out]), validation_batch_size=EVAL_BATCH_SIZE,
        epochs=spec.epochs, callbacks=[clock, record, printer], verbose=0,
    )
    steps = spec.steps // spec.epochs * spec.epochs
    # The first measurement includes compiling the step (seconds): the rate is taken after it.
    (first_step, _, first_training, _), (last_step, _, last_training, _) = curve[0], curve[-1]
    per_step = (last_training - first_training) / max(last_step - first_step, 1)
    tokens = spec.batch_size * data.lookback
    reached = next(((s, w, t) for s, w, t, loss in curve if loss <= args.target), None)
    full = model.evaluate(val.x, val.y, batch_size=EVAL_BATCH_SIZE, verbose=0, return_dict=True)["loss"]
    print(f"\n{steps} steps: {1000 * per_step:.1f} ms per step after the first measurement, "
          f"{tokens / per_step:,.0f} tokens per second ({tokens} per step)")
    print(f"{args.target} nats first reached: " + (
        f"step {reached[0]}, {reached[1]:.1f} s from launch ({reached[2]:.1f} s training)" if reached else "not reached"
    ))
    print(f"final held-out loss on the whole held-out text ({len(val.y):,} windows): {full:.3f} nats per character; "
          f"{time.perf_counter() - LAUNCHED:.1f} s from launch")


if __name__ == "__main__":
    main()
