"""Echo state network on Mackey-Glass (tau = 17): 84-step free-running NRMSE, seqlab vs reservoirpy.

The usual setting (Jaeger & Haas, Science 2004): the delay differential equation

    dx/dt = 0.2 x(t - tau) / (1 + x(t - tau)^10) - 0.1 x(t),   tau = 17,

integrated by Euler with dt = 0.1 and subsampled every 10 steps (one sample per
time unit), then squashed as tanh(x - 1). The ESN is trained one step ahead
(teacher forcing) on 3,000 samples, the first `washout` of which are dropped,
then runs free for 84 steps, feeding its prediction back as input.
NRMSE = RMS error over the 84 steps / standard deviation of the series.

Run (from the repository root):
      python -m bench.esn_mackey_glass              (1000 units, 3 seeds, sweep)
      python -m bench.esn_mackey_glass --units 500 --seeds 1 --no-sweep
"""

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from seqlab.data.mackey_glass import mackey_glass_series as mackey_glass  # noqa: E402
from seqlab.layers.recurrent.esn import ESN, ESNReadout, free_run  # noqa: E402

TRAIN, HORIZON, WASHOUT, TARGET = 3000, 84, 100, 2e-4


def nrmse(prediction, truth, scale):
    return float(np.sqrt(np.mean((np.ravel(prediction) - np.ravel(truth)) ** 2)) / scale)


def seqlab_esn(series, units, seed, ridge=1e-8, dtype="float32", **reservoir):
    """Trains on series[:TRAIN] and free-runs HORIZON steps; returns (NRMSE, build s, fit s)."""
    u = series[None, :TRAIN, None]  # (1, T, 1): inputs u_0..u_{T-1}
    y = series[None, 1 : TRAIN + 1, None]  # targets u_1..u_T
    start = time.perf_counter()
    esn = ESN(units, seed=seed, dtype=dtype, **reservoir)
    esn.build(u.shape)  # draws the reservoir, rescales B to the spectral radius
    built = time.perf_counter()
    readout = ESNReadout(1, ridge=ridge, washout=WASHOUT, dtype=dtype)
    states = keras.Sequential([esn]).predict_on_batch(u)  # compiled loop: (1, T, units)
    readout.fit(states, y)
    fitted = time.perf_counter()
    prediction = free_run(esn, readout, u, steps=HORIZON)
    truth = series[TRAIN : TRAIN + HORIZON]
    return nrmse(prediction, truth, series.std()), built - start, fitted - built


def reservoirpy_esn(series, units, seed, ridge=1e-8, leak_rate=0.6, spectral_radius=1.1):
    """The same task and hyper-parameters with reservoirpy (its own random-matrix recipes)."""
    from reservoirpy.nodes import Reservoir, Ridge

    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    reservoir = Reservoir(
        units,
        lr=leak_rate,
        sr=spectral_radius,
        input_scaling=1.0,
        input_connectivity=1.0,
        rc_connectivity=0.1,
        bias=0.2 * rng.uniform(-1.0, 1.0, units),
        seed=seed,
    )
    readout = Ridge(ridge=ridge)
    states = reservoir.run(series[:TRAIN, None])
    readout.fit(states, series[1 : TRAIN + 1, None], warmup=WASHOUT)
    fit_seconds = time.perf_counter() - start
    y = readout.step(states[-1])
    prediction = []
    for _ in range(HORIZON):
        prediction.append(np.ravel(y)[0])
        y = readout.step(reservoir.step(y))
    return nrmse(prediction, series[TRAIN : TRAIN + HORIZON], series.std()), fit_seconds


def float32_readout_nrmse(series, units, seed):
    """What the comment in `ridge_fit` warns about: the same fit solved in float32."""
    u = series[None, :TRAIN, None]
    esn = ESN(units, seed=seed)
    Z = keras.Sequential([esn]).predict_on_batch(u)[0, WASHOUT:].astype(np.float32)
    Z = np.concatenate([Z, np.ones((len(Z), 1), np.float32)], axis=1)
    Y = series[WASHOUT + 1 : TRAIN + 1, None].astype(np.float32)
    penalty = np.float32(1e-8) * np.eye(Z.shape[1], dtype=np.float32)
    W = np.linalg.solve(Z.T @ Z + penalty, Z.T @ Y)
    readout = ESNReadout(1)
    readout.build((None, units))
    readout.kernel.assign(W[:-1])
    readout.bias.assign(W[-1])
    prediction = free_run(esn, readout, u, steps=HORIZON)
    return nrmse(prediction, series[TRAIN : TRAIN + HORIZON], series.std())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--no-sweep", action="store_true")
    args = parser.parse_args()

    series = np.tanh(mackey_glass(TRAIN + HORIZON + 1) - 1.0)
    print(f"Mackey-Glass tau=17, train {TRAIN} (washout {WASHOUT}), free run {HORIZON} steps, "
          f"{args.units} units, target NRMSE <= {TARGET:g}\n")
    print(f"{'model':<34} {'seed':>4} {'NRMSE_84':>10} {'build s':>8} {'fit s':>7}")
    for seed in range(args.seeds):
        for dtype in ("float32", "float64"):
            error, build_s, fit_s = seqlab_esn(series, args.units, seed, dtype=dtype)
            mark = "ok" if error <= TARGET else "MISSED"
            print(f"{'seqlab ESN defaults, ' + dtype:<34} {seed:>4} {error:>10.2e} {build_s:>8.2f} {fit_s:>7.2f}  {mark}")
        try:
            error, fit_s = reservoirpy_esn(series, args.units, seed)
            print(f"{'reservoirpy 0.4 (same hyper-params)':<34} {seed:>4} {error:>10.2e} {'':>8} {fit_s:>7.2f}")
        except ImportError:
            print("reservoirpy not installed: peer skipped")
    print(f"\nreadout solved in float32 instead of float64 (seed 0): NRMSE_84 = "
          f"{float32_readout_nrmse(series, args.units, 0):.2e}")

    if args.no_sweep:
        return
    print("\nOne knob at a time around the defaults (seed 0), NRMSE_84:")
    sweep = {
        "spectral_radius": [0.5, 0.8, 1.0, 1.1, 1.25, 1.5],
        "leak_rate": [0.1, 0.3, 0.6, 0.8, 1.0],
        "input_scaling": [0.1, 0.3, 1.0, 3.0],
        "ridge": [1e-12, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2],
        "units": [100, 300, 1000],
    }
    for knob, values in sweep.items():
        cells = []
        for value in values:
            units = value if knob == "units" else args.units
            kwargs = {} if knob == "units" else {knob: value}
            error, _, _ = seqlab_esn(series, units, 0, **kwargs)
            cells.append(f"{value:g}: {error:.1e}")
        print(f"  {knob:<16} " + "  ".join(cells))


if __name__ == "__main__":
    main()
