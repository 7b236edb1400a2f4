"""The GPT preset with Keras's JAX backend (on a GPU where there is one): ms per step, tokens/s, MFU, loss against time.

    KERAS_BACKEND=jax python -m bench.gpt_jax [--batch 12] [--steps 1500] [--every 250] [--bf16]

The same network, data, split, optimizer and schedule as ``bench.gpt_shakespeare``
(the ``gpt-shakespeare`` preset, compiled by ``seqlab.training.optimizer.compile_model``),
but no TensorFlow: batches of random training windows come from NumPy, and
Keras's JAX trainer runs ``steps_per_execution`` XLA-compiled steps per call.
``--batch`` scales the batch (the preset's is 12, sized for a laptop CPU; a GPU
is idle at that size); ``--bf16`` trains in mixed bfloat16.

Model FLOP utilisation as nanoGPT's ``estimate_mfu``: 6 N + 12 L T d FLOPs per
token (N the weights without the position table, L blocks, context T, width
d), times the tokens per second, over the chip's dense bf16 peak
(``--peak``, 989 TFLOP/s for an H100 or H200 SXM).
"""

from __future__ import annotations

import time

LAUNCHED = time.perf_counter()

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import os  # noqa: E402

if os.environ.get("KERAS_BACKEND") != "jax":
    raise SystemExit("Run with KERAS_BACKEND=jax: this bench trains without TensorFlow.")

import jax  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402

from seqlab.data import load_dataset  # noqa: E402
from seqlab.models import build_model  # noqa: E402
from seqlab.training.optimizer import compile_model  # noqa: E402
from seqlab.training.presets import GPT_SHAKESPEARE  # noqa: E402


def random_batches(x: np.ndarray, y: np.ndarray, batch: int, seed: int):
    """Endless batches of training windows drawn at random, as nanoGPT's ``get_batch``."""
    rng = np.random.default_rng(seed)
    while True:
        rows = rng.integers(0, len(y), batch)
        yield x[rows], y[rows]


def flops_per_token(model: keras.Model, spec) -> float:
    """nanoGPT's estimate: 6 N + 12 L T d (N without the position table)."""
    options = spec.model_options
    positions = sum(int(np.prod(w.shape)) for w in model.weights if "position" in w.path)
    n = model.count_params() - positions
    return 6 * n + 12 * options["layers"] * spec.data_options["lookback"] * options["width"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=GPT_SHAKESPEARE.batch_size)
    parser.add_argument("--steps", type=int, default=GPT_SHAKESPEARE.steps)
    parser.add_argument("--every", type=int, default=250, help="steps between held-out measurements")
    parser.add_argument("--eval-windows", type=int, default=240)
    parser.add_argument("--target", type=float, default=1.92)
    parser.add_argument("--bf16", action="store_true", help="mixed bfloat16 (weights float32)")
    parser.add_argument("--peak", type=float, default=989e12, help="the chip's dense bf16 FLOP/s")
    args = parser.parse_args()

    if args.bf16:
        keras.mixed_precision.set_global_policy("mixed_bfloat16")
    spec = dataclasses.replace(
        GPT_SHAKESPEARE, batch_size=args.batch, steps=args.steps, epochs=max(args.steps // args.every, 1)
    ).resolved()
    keras.utils.set_random_seed(spec.seed)
    data = load_dataset(spec.dataset, **spec.data_options)
    train, val = data.splits["train"], data.splits["val"]
    held_out = np.random.default_rng(0).choice(len(val.y), min(args.eval_windows, len(val.y)), replace=False)
    model = compile_model(build_model(spec.model, data, spec.model_options), spec, data)
    print(f"{jax.devices()[0].device_kind} ({jax.default_backend()}), Keras {keras.__version__}, JAX {jax.__version__}; "
          f"{model.count_params():,} weights; batch {spec.batch_size} x {data.lookback}; "
          f"{'mixed bf16' if args.bf16 else 'float32'}", flush=True)
    print(f"{'step':>6} {'s from launch':>14} {'val loss':>9}", flush=True)
    curve = []

    def record(epoch, logs):
        curve.append(((epoch + 1) * spec.steps // spec.epochs, time.perf_counter() - LAUNCHED, logs["val_loss"]))
        print(f"{curve[-1][0]:6d} {curve[-1][1]:14.1f} {curve[-1][2]:9.3f}", flush=True)

    steps_per_epoch = spec.steps // spec.epochs
    timed = []  # (start, end) of each epoch's training batches, evaluation left out
    model.fit(
        random_batches(train.x, train.y, spec.batch_size, spec.seed),
        validation_data=(val.x[held_out], val.y[held_out]), validation_batch_size=256,
        epochs=spec.epochs, steps_per_epoch=steps_per_epoch, shuffle=False, verbose=0,
        callbacks=[
            keras.callbacks.LambdaCallback(
                on_epoch_begin=lambda epoch, logs: timed.append([time.perf_counter(), None]),
                on_test_begin=lambda logs: timed[-1].__setitem__(1, time.perf_counter()),
                on_epoch_end=record,
            )
        ],
    )
    # The first epoch includes compiling: the rate is taken over the others.
    seconds = sum(end - start for start, end in timed[1:])
    per_step = seconds / max(steps_per_epoch * (len(timed) - 1), 1)
    tokens = spec.batch_size * data.lookback / per_step
    mfu = tokens * flops_per_token(model, spec) / args.peak
    reached = next(((s, t) for s, t, loss in curve if loss <= args.target), None)
    print(f"\n{1000 * per_step:.2f} ms per step, {tokens:,.0f} tokens per second, MFU {100 * mfu:.2f} % "
          f"of {args.peak / 1e12:.0f} TFLOP/s; compile and first {steps_per_epoch} steps "
          f"{timed[0][1] - timed[0][0]:.1f} s")
    print(f"{args.target} nats first reached: "
          + (f"step {reached[0]}, {reached[1]:.1f} s from launch" if reached else "not reached")
          + f"; final held-out loss {curve[-1][2]:.3f}")


if __name__ == "__main__":
    main()
