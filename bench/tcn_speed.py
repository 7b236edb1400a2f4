"""Training speed of seqlab's temporal convolutional network beside Keras's LSTM of about the same weights.

Same process, same data (batch 64, 128 steps, 32 features, a Dense head on the
last step, Adam, MSE), XLA left to Keras's "auto". The TCN has 32 channels,
kernel size 3 and dilations 1, 2, ..., 32 (receptive field 253 >= 128 steps);
the LSTM has the units that give it about as many weights. Each model trains one
warm-up epoch, then `--epochs` short timed epochs in ABBA order; the median
epoch is reported. Then both generate `--steps` steps one at a time from their
state (the TCN's shift buffers, the LSTM's h and c), against the TCN recomputing
its whole receptive window for every new step. The load average is printed: on
a busy machine, run again.

Run (from the repository root):
      python -m bench.tcn_speed
      python -m bench.tcn_speed --batches 5 --epochs 10
"""

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from seqlab.layers.tcn import TemporalConvNet  # noqa: E402

BATCH, STEPS, FEATURES, FILTERS, KERNEL = 64, 128, 32, 32, 3
DILATIONS = [1, 2, 4, 8, 16, 32]


def lstm_units_matching(weights):
    """The LSTM width whose 4 u (features + u + 1) weights come closest to ``weights``."""
    return min(range(1, 512), key=lambda u: abs(4 * u * (FEATURES + u + 1) - weights))


def make_model(layer):
    inputs = keras.Input((STEPS, FEATURES))
    model = keras.Model(inputs, keras.layers.Dense(1)(layer(inputs)))
    model.compile(optimizer="adam", loss="mse")
    return model


def training_rates(models, x, y, epochs):
    seconds = {key: [] for key in models}
    for model in models.values():
        model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0)  # warm-up: tracing
    for epoch in range(epochs):
        for key in list(models) if epoch % 2 == 0 else list(models)[::-1]:
            start = time.perf_counter()
            models[key].fit(x, y, batch_size=BATCH, epochs=1, verbose=0)
            seconds[key].append(time.perf_counter() - start)
    return {key: len(x) / np.median(s) for key, s in seconds.items()}


def per_step_milliseconds(step, state, x):
    """Median wall time of one compiled ``step(x_t, state)`` over the sequence ``x``, after a warm-up step."""
    import tensorflow as tf  # the bench's own timing harness: one compiled step, as generation runs it

    compiled = tf.function(step)
    compiled(x[:, 0], state)
    times = []
    for t in range(x.shape[1]):
        start = time.perf_counter()
        _, state = compiled(x[:, t], state)
        times.append(time.perf_counter() - start)
    return 1000 * np.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=5, help="batches per epoch")
    parser.add_argument("--epochs", type=int, default=10, help="timed epochs per model")
    parser.add_argument("--steps", type=int, default=64, help="generated steps timed one at a time")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    x = rng.normal(size=(BATCH * args.batches, STEPS, FEATURES)).astype("float32")
    y = rng.normal(size=(len(x), 1)).astype("float32")
    tcn = TemporalConvNet(FILTERS, KERNEL, DILATIONS, return_sequences=False)
    models = {"tcn": make_model(tcn)}
    units = lstm_units_matching(tcn.count_params())
    lstm = keras.layers.LSTM(units)
    models["lstm"] = make_model(lstm)
    print(f"keras {keras.__version__}, backend {keras.config.backend()}, batch {BATCH}, {STEPS} steps, "
          f"{FEATURES} features, {args.batches} batches/epoch, median of {args.epochs} timed epochs, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print(f"TCN: {FILTERS} channels, kernel {KERNEL}, dilations {DILATIONS}, receptive field "
          f"{tcn.receptive_field}, {tcn.count_params():,} weights; "
          f"LSTM: {units} units, {lstm.count_params():,} weights")
    rate = training_rates(models, x, y, args.epochs)
    print(f"training samples/s: TCN {rate['tcn']:.0f}, LSTM {rate['lstm']:.0f}, "
          f"TCN/LSTM {rate['tcn'] / rate['lstm']:.2f}")

    one = x[:1, : args.steps]  # one sequence, generated step by step
    window = tcn.receptive_field
    full = TemporalConvNet.from_config({**tcn.get_config(), "return_sequences": True})
    full.build((None, None, FEATURES))
    full.set_weights(tcn.get_weights())

    def recompute(x_t, history):  # no state but the inputs: the whole window again for every new step
        history = keras.ops.concatenate([history[:, 1:], keras.ops.expand_dims(x_t, 1)], axis=1)
        return full(history)[:, -1], history

    cell = lstm.cell
    timings = {
        "TCN step (shift buffers)": per_step_milliseconds(tcn.step, tcn.initial_state(1), one),
        f"TCN recomputing its {window}-step window": per_step_milliseconds(
            recompute, keras.ops.zeros((1, window, FEATURES)), one),
        "LSTM cell step (h, c)": per_step_milliseconds(cell, [keras.ops.zeros((1, units))] * 2, one),
    }
    for name, ms in timings.items():
        print(f"one generated step, batch 1, {name}: {ms:.3f} ms")


if __name__ == "__main__":
    main()
