"""Echo state network on Mackey-Glass (tau = 17): 84-step free-run NRMSE and fit time, seqlab vs reservoirpy.

The usual setting (Jaeger & Haas, Science 2004): the delay differential equation

    dx/dt = 0.2 x(t - tau) / (1 + x(t - tau)^10) - 0.1 x(t),   tau = 17,

integrated by Euler with dt = 0.1 and subsampled every 10 steps (one sample per
time unit), then squashed as tanh(x - 1). The ESN is trained one step ahead
(teacher forcing) on 3,000 samples, the first `washout` of which are dropped,
then runs free for 84 steps, feeding its prediction back as input.
NRMSE = RMS error over the 84 steps / standard deviation of the series.

Both libraries get the same settings (SETTINGS: units, spectral radius, leak
rate, input scaling, bias scaling, reservoir connectivity, dense inputs,
uniform weights, ridge, washout) and draw their own random reservoir from the
seed, so the figures are medians over seeds; a last row runs reservoirpy on
seqlab's own reservoir, which separates the implementations from the draws. Fit time: from nothing to a fitted
readout (draw the reservoir and rescale it to the spectral radius, run it over
the 3,000 inputs, solve the ridge regression); one warm-up fit of each library
first, so that neither pays its one-off start-up (TensorFlow's runtime).

Run (from the repository root; reservoirpy from bench/requirements.txt):
      python -m bench.esn_mackey_glass                  (1000 units, 5 seeds)
      python -m bench.esn_mackey_glass --seeds 1 --sweep   (+ float32 readout, one knob at a time)
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from seqlab.data.mackey_glass import mackey_glass_series as mackey_glass  # noqa: E402
from seqlab.layers.recurrent.esn import ESN, ESNReadout, free_run, reservoir_states  # noqa: E402

TRAIN, HORIZON, WASHOUT, TARGET = 3000, 84, 100, 2e-4
SETTINGS = dict(units=1000, spectral_radius=1.1, leak_rate=0.6, input_scaling=1.0, bias_scaling=0.2,
                connectivity=0.1, ridge=1e-8)


def nrmse(prediction, truth, scale):
    return float(np.sqrt(np.mean((np.ravel(prediction) - np.ravel(truth)) ** 2)) / scale)


def seqlab_esn(series, seed, dtype="float32", units=1000, ridge=1e-8, xla=True, **reservoir):
    """Fits on series[:TRAIN], free-runs HORIZON steps: NRMSE, fit seconds and their parts.

    `xla`: the states from `reservoir_states` (the loop compiled by XLA, seqlab's way);
    False: a plain `keras.Sequential([esn])`, the loop as a TensorFlow graph.
    """
    u = series[None, :TRAIN, None]  # (1, T, 1): inputs u_0..u_{T-1}
    y = series[None, 1 : TRAIN + 1, None]  # targets u_1..u_T
    start = time.perf_counter()
    esn = ESN(units, seed=seed, dtype=dtype, **reservoir)
    esn.build(u.shape)  # draws the reservoir, rescales B to the spectral radius
    drawn = time.perf_counter()
    states = reservoir_states(esn, u) if xla else keras.Sequential([esn]).predict_on_batch(u)  # (1, T, units)
    driven = time.perf_counter()
    readout = ESNReadout(1, ridge=ridge, washout=WASHOUT, dtype=dtype).fit(states, y)
    fitted = time.perf_counter()
    prediction = free_run(esn, readout, u, steps=HORIZON)
    error = nrmse(prediction, series[TRAIN : TRAIN + HORIZON], series.std())
    return {"nrmse": error, "fit": fitted - start, "draw": drawn - start, "states": driven - drawn,
            "readout": fitted - driven}


def seqlab_reservoir(seed, units=1000, ridge=1e-8, **reservoir):
    """seqlab's draw for `seed` in float64: the notes' (B, V, b)."""
    cell = ESN(units, seed=seed, dtype="float64", **reservoir).cell
    cell.build((None, 1))
    return tuple(keras.ops.convert_to_numpy(w) for w in (cell.B, cell.V, cell.b))


def reservoirpy_esn(series, seed, units=1000, spectral_radius=1.1, leak_rate=0.6, input_scaling=1.0,
                    bias_scaling=0.2, connectivity=0.1, ridge=1e-8, matrices=None):
    """The same task and settings with reservoirpy 0.4 (float64, as it defaults).

    Its own draw from `seed`, or the given reservoir `matrices` (B, V, b): then
    only the implementations differ, not the random reservoir.
    """
    from reservoirpy.mat_gen import uniform
    from reservoirpy.nodes import Reservoir, Ridge

    start = time.perf_counter()
    if matrices is None:
        weights = dict(W=uniform, Win=uniform, bias=uniform(low=-bias_scaling, high=bias_scaling), seed=seed)
    else:
        weights = dict(zip(("W", "Win", "bias"), matrices))
    reservoir = Reservoir(
        units, lr=leak_rate, sr=spectral_radius, input_scaling=input_scaling, input_connectivity=1.0,
        rc_connectivity=connectivity, **weights,
    )
    readout = Ridge(ridge=ridge)
    states = reservoir.run(series[:TRAIN, None])  # (T, units); the reservoir keeps z_T
    readout.fit(states, series[1 : TRAIN + 1, None], warmup=WASHOUT)
    fit_seconds = time.perf_counter() - start
    y = readout.step(states[-1])
    prediction = []
    for _ in range(HORIZON):
        prediction.append(np.ravel(y)[0])
        y = readout.step(reservoir.step(y))
    return {"nrmse": nrmse(prediction, series[TRAIN : TRAIN + HORIZON], series.std()), "fit": fit_seconds}


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


def sweep(series, units):
    print("\nOne knob at a time around the defaults (seqlab, seed 0), NRMSE_84:")
    knobs = {
        "spectral_radius": [0.5, 0.8, 1.0, 1.1, 1.25, 1.5],
        "leak_rate": [0.1, 0.3, 0.6, 0.8, 1.0],
        "input_scaling": [0.1, 0.3, 1.0, 3.0],
        "ridge": [1e-12, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2],
        "units": [100, 300, 1000],
    }
    for knob, values in knobs.items():
        cells = []
        for value in values:
            kwargs = {knob: value} if knob == "units" else {"units": units, knob: value}
            cells.append(f"{value:g}: {seqlab_esn(series, 0, **kwargs)['nrmse']:.1e}")
        print(f"  {knob:<16} " + "  ".join(cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=SETTINGS["units"])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--sweep", action="store_true", help="also the float32 readout and a one-knob sweep")
    args = parser.parse_args()
    settings = {**SETTINGS, "units": args.units}

    series = np.tanh(mackey_glass(TRAIN + HORIZON + 1) - 1.0)
    print(f"Mackey-Glass tau=17, train {TRAIN} (washout {WASHOUT}), free run {HORIZON} steps, "
          f"{', '.join(f'{k} {v:g}' for k, v in settings.items())}; target NRMSE <= {TARGET:g}\n")
    peers = {
        "seqlab ESN, float32 (default)": lambda seed: seqlab_esn(series, seed, "float32", **settings),
        "seqlab ESN, float32, graph loop": lambda seed: seqlab_esn(series, seed, "float32", xla=False, **settings),
        "seqlab ESN, float64": lambda seed: seqlab_esn(series, seed, "float64", **settings),
        "reservoirpy": lambda seed: reservoirpy_esn(series, seed, **settings),
        # Not timed against: its reservoir is given, not drawn.
        "reservoirpy on seqlab's reservoir": lambda seed: reservoirpy_esn(
            series, seed, matrices=seqlab_reservoir(seed, **settings), **settings),
    }
    try:
        import reservoirpy
    except ImportError:
        peers = {k: v for k, v in peers.items() if not k.startswith("reservoirpy")}
        print("reservoirpy not installed (pip install -r bench/requirements.txt): peer skipped\n")
    else:
        print(f"reservoirpy {reservoirpy.__version__}\n")
    for run in peers.values():
        run(0)  # warm-up: start-up costs paid once per process are not the fit's

    results = {name: [] for name in peers}
    print(f"{'model':<34} {'seed':>4} {'NRMSE_84':>10} {'fit s':>7}   seqlab fit: draw + states + readout s")
    for seed in range(args.seeds):
        for name, run in peers.items():
            r = run(seed)
            results[name].append(r)
            parts = f"   {r['draw']:.2f} + {r['states']:.2f} + {r['readout']:.2f}" if "draw" in r else ""
            print(f"{name:<34} {seed:>4} {r['nrmse']:>10.2e} {r['fit']:>7.2f}{parts}")

    medians = {name: {key: statistics.median(r[key] for r in rs) for key in ("nrmse", "fit")}
               for name, rs in results.items()}
    fastest = {name: min(r["fit"] for r in rs) for name, rs in results.items()}
    print(f"\nover {args.seeds} seeds:")
    print(f"{'model':<34} {'median NRMSE_84':>15} {'median fit s':>12} {'fastest fit s':>13}")
    for name, m in medians.items():
        print(f"{name:<34} {m['nrmse']:>15.2e} {m['fit']:>12.2f} {fastest[name]:>13.2f}")
    peer = medians.get("reservoirpy")
    if peer:
        print("\nratios to reservoirpy's medians (the bar: NRMSE <= 1, fit time <= 1.0):")
        for name, m in medians.items():
            if name.startswith("seqlab"):
                nrmse_ratio, fit_ratio = m["nrmse"] / peer["nrmse"], m["fit"] / peer["fit"]
                verdict = "met" if nrmse_ratio <= 1 and fit_ratio <= 1.0 else "MISSED"
                print(f"  {name:<32} NRMSE {nrmse_ratio:5.2f}x   fit time {fit_ratio:5.2f}x   {verdict}")
        same = [a["nrmse"] / b["nrmse"] for a, b in zip(results["seqlab ESN, float64"],
                                                        results["reservoirpy on seqlab's reservoir"])]
        print(f"  seqlab float64 / reservoirpy on the same reservoir, NRMSE per seed: "
              f"{', '.join(f'{r:.4f}' for r in same)}")

    if args.sweep:
        print(f"\nreadout solved in float32 instead of float64 (seed 0): NRMSE_84 = "
              f"{float32_readout_nrmse(series, args.units, 0):.2e}")
        sweep(series, args.units)


if __name__ == "__main__":
    main()
