"""Training throughput of seqlab's recurrent layers beside Keras's built-in ones.

Same process, same shapes (batch 64, 100 steps, 32 features, 128 units, a Dense
head, Adam, MSE), XLA left to Keras's "auto". Each model trains one warm-up
epoch, then `--epochs` short timed epochs; the two layers of a pair alternate
epoch by epoch (ABBA order), and the median epoch is reported, so that other
work on a shared machine slows both alike. The load average is printed: on a
busy machine, run again.

Run (from the repository root):
      python -m bench.recurrent_throughput
      python -m bench.recurrent_throughput --batches 5 --epochs 10
"""

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

import seqlab.layers  # noqa: E402
from bench.tcn_speed import training_rates  # noqa: E402

BATCH, STEPS, FEATURES, UNITS = 64, 100, 32, 128
PAIRS = ["LSTM", "GRU", "SimpleRNN"]


def make_model(layer_cls):
    inputs = keras.Input((STEPS, FEATURES))
    outputs = keras.layers.Dense(1)(layer_cls(UNITS)(inputs))
    model = keras.Model(inputs, outputs)
    model.compile(optimizer="adam", loss="mse")
    return model


def samples_per_second(name: str, batches: int, epochs: int) -> dict[str, float]:
    """Median training samples/s of Keras's layer ``name`` and seqlab's, ``{"keras": ..., "seqlab": ...}``."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(BATCH * batches, STEPS, FEATURES)).astype("float32")
    y = rng.normal(size=(len(x), 1)).astype("float32")
    models = {"keras": make_model(getattr(keras.layers, name)), "seqlab": make_model(getattr(seqlab.layers, name))}
    return training_rates(models, x, y, epochs)  # one warm-up epoch, then ABBA-ordered timed ones


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=5, help="batches per epoch")
    parser.add_argument("--epochs", type=int, default=20, help="timed epochs per model")
    parser.add_argument("--layers", default=",".join(PAIRS), help="which pairs, e.g. LSTM,GRU")
    args = parser.parse_args()

    print(f"keras {keras.__version__}, backend {keras.config.backend()}, "
          f"batch {BATCH}, {STEPS} steps, {FEATURES} features, {UNITS} units, "
          f"{args.batches} batches/epoch, median of {args.epochs} timed epochs, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print(f"{'layer':<10} {'keras samples/s':>16} {'seqlab samples/s':>17} {'seqlab/keras':>13}")
    for name in args.layers.split(","):
        rate = samples_per_second(name, args.batches, args.epochs)
        print(f"{name:<10} {rate['keras']:>16.0f} {rate['seqlab']:>17.0f} {rate['seqlab'] / rate['keras']:>13.2f}")


if __name__ == "__main__":
    main()
