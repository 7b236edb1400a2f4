"""Seconds of ``generate_text`` as a page's decoding settings change: the first greedy call, the first sampled one,
then each new temperature.

    python -m bench.sampling_settings [--model lstm] [--tokens 40]

A tiny language run (pydoc, 3,000 characters, one epoch, 8 units of ``--model``) trained into a temporary store,
its model loaded once as the Generate page loads it, then ``--tokens`` characters generated greedily, then sampled at
temperatures 0.7, 0.8, 0.9 and 1.0 with top-k 5. Each call's seconds: the first of each kind traces and compiles
its loop; a later one only runs it. Run from an older checkout, the same script times that checkout (a loop
compiled per setting).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from seqlab.runs import RunStore  # noqa: E402
from seqlab.tasks.language.generate import generate_text  # noqa: E402
from seqlab.training import ExperimentSpec, run_experiment  # noqa: E402

TEMPERATURES = (0.0, 0.7, 0.8, 0.9, 1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="lstm")
    parser.add_argument("--tokens", type=int, default=40)
    args = parser.parse_args()
    spec = ExperimentSpec("pydoc", args.model, data_options={"characters": 3000, "lookback": 16, "stride": 16,
                                                             "embedding_dim": 8}, model_options={"units": 8}, epochs=1)
    run = run_experiment(spec, store=RunStore(tempfile.mkdtemp()))
    model = run.load_model()
    for temperature in TEMPERATURES:
        started = time.perf_counter()
        generate_text(run, "def ", args.tokens, temperature=temperature, top_k=5 if temperature else None, seed=1,
                      model=model)
        print(f"temperature {temperature}: {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
