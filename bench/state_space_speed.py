"""Training speed of the state-space layers beside keras.layers.LSTM at about the same number of weights.

Same process, same data (batch 64, 128 steps, 32 features, a Dense head on the
last step, Adam, MSE), XLA left to Keras's "auto". The bodies: Keras's LSTM
(68 units); two S4D blocks (`DiagonalStateSpace`, N = 64, then a GLU of a
Dense to 2H), by the convolution kernel and by the recurrence; two
`MambaBlock`s (expand 2, N = 16); and one `SelectiveStateSpace` (N = 16) on
its own. Each model trains one warm-up epoch, then `--epochs` short timed
epochs, the models in turn, reversed every other epoch (ABBA), and the median
epoch is reported, so that other work on a shared machine slows all alike.
The load average is printed: on a busy machine, run again.

Run (from the repository root):
      python -m bench.state_space_speed
      python -m bench.state_space_speed --batches 3 --epochs 5
"""

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from seqlab.layers.state_space import DiagonalStateSpace, MambaBlock, SelectiveStateSpace  # noqa: E402

BATCH, STEPS, FEATURES = 64, 128, 32


def s4d_blocks(mode):
    def body(x):
        for _ in range(2):
            x = DiagonalStateSpace(64, mode=mode)(x)
            x = keras.layers.Activation("gelu")(x)
            value, gate = keras.ops.split(keras.layers.Dense(2 * FEATURES)(x), 2, axis=-1)
            x = value * keras.ops.sigmoid(gate)  # GLU, as S4D's blocks mix channels
        return x

    return body


def mamba_blocks(x):
    for _ in range(2):
        x = MambaBlock(expand=2, state_size=16)(x)
    return x


BODIES = {
    "keras LSTM(68)": lambda x: keras.layers.LSTM(68, return_sequences=True)(x),
    "2 S4D blocks, convolution": s4d_blocks("convolution"),
    "2 S4D blocks, recurrence": s4d_blocks("recurrence"),
    "2 Mamba blocks": mamba_blocks,
    "1 SelectiveStateSpace": lambda x: SelectiveStateSpace(16)(x),
}


def make_model(body):
    inputs = keras.Input((STEPS, FEATURES))
    outputs = keras.layers.Dense(1)(body(inputs)[:, -1])
    model = keras.Model(inputs, outputs)
    model.compile(optimizer="adam", loss="mse")
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=5, help="batches per epoch")
    parser.add_argument("--epochs", type=int, default=10, help="timed epochs per model")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    x = rng.normal(size=(BATCH * args.batches, STEPS, FEATURES)).astype("float32")
    y = rng.normal(size=(len(x), 1)).astype("float32")
    print(f"keras {keras.__version__}, backend {keras.config.backend()}, "
          f"batch {BATCH}, {STEPS} steps, {FEATURES} features, "
          f"{args.batches} batches/epoch, median of {args.epochs} timed epochs, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    models = {name: make_model(body) for name, body in BODIES.items()}
    seconds = {name: [] for name in models}
    for model in models.values():
        model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0)  # warm-up: tracing
    for epoch in range(args.epochs):
        for name in list(models) if epoch % 2 == 0 else list(models)[::-1]:
            start = time.perf_counter()
            models[name].fit(x, y, batch_size=BATCH, epochs=1, verbose=0)
            seconds[name].append(time.perf_counter() - start)
    lstm = np.median(seconds["keras LSTM(68)"])
    print(f"{'body':<27} {'weights':>8} {'samples/s':>10} {'time / LSTM':>12}")
    for name, model in models.items():
        median = np.median(seconds[name])
        print(f"{name:<27} {model.count_params():>8,} {len(x) / median:>10.0f} {median / lstm:>12.2f}")


if __name__ == "__main__":
    main()
