"""How long a memory each recurrent cell learns on the adding problem, within a fixed budget.

    python -m bench.adding_problem [--lengths 10,25,50,100,200] [--epochs 12] [--samples 3000]

For every sequence length T and every cell (Elman SimpleRNN, LSTM, GRU) one
run of ``run_experiment`` with the same budget: ``samples`` sequences (80 %
train), ``epochs`` epochs, 32 units, Adam at 1e-2, batch 32, seed 0. Prints
the test MSE against the constant prediction (MSE = Var(sum) ≈ 0.167), and per
cell the longest T it still solves: MSE below 1/12 ≈ 0.083. That bar needs the
first marked value: a model that knows only the second one (the recent half)
and predicts 0.5 for the other scores exactly Var(u) = 1/12.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from seqlab.runs import RunStore  # noqa: E402
from seqlab.training import ExperimentSpec, run_experiment  # noqa: E402

MODELS = ("simple_rnn", "lstm", "gru")
SOLVED = 1 / 12


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="10,25,50,100,200", help="comma-separated sequence lengths T")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--samples", type=int, default=3000)
    args = parser.parse_args()
    lengths = [int(t) for t in args.lengths.split(",")]

    print(f"adding problem: {args.samples} sequences (80 % train), {args.epochs} epochs, 32 units, "
          "Adam 1e-2, batch 32, seed 0")
    print(f"test MSE (constant prediction: ~0.167; solved: < 1/12 = {SOLVED:.3f}); seconds per run in brackets\n")
    print(f"{'T':>5} {'constant':>9}" + "".join(f"{m:>20}" for m in MODELS))
    longest = {m: None for m in MODELS}
    with tempfile.TemporaryDirectory() as root:
        store = RunStore(root)
        for T in lengths:
            cells, baseline = [], None
            for model in MODELS:
                spec = ExperimentSpec(
                    "adding", model, data_options={"length_T": T, "samples": args.samples},
                    model_options={"units": 32}, epochs=args.epochs, batch_size=32, learning_rate=1e-2,
                )
                started = time.monotonic()
                run = run_experiment(spec, store=store)
                seconds = time.monotonic() - started
                mse = run.metrics["model"]["mse"]
                baseline = run.metrics["baselines"]["mean"]["mse"]
                if mse < SOLVED:
                    longest[model] = T
                mark = "*" if mse < SOLVED else " "
                cells.append(f"{mse:>11.4f}{mark} ({seconds:4.0f} s)")
            print(f"{T:>5} {baseline:>9.4f}" + "".join(f"{c:>20}" for c in cells), flush=True)
    print("\n* solved. Longest T solved within the budget:")
    for model, T in longest.items():
        print(f"  {model:<12} {T if T is not None else 'none of ' + args.lengths}")


if __name__ == "__main__":
    main()
