"""Tokens per second of stateful LSTM generation, beside re-running the whole context every step.

    python -m bench.generation_speed [--tokens 200] [--units 128]

Trains a small character-level LSTM on the pydoc text (one epoch: the speed
does not depend on how well it learned), then greedily generates ``--tokens``
characters from the same prompt twice with ``seqlab.decoding.greedy``:

- stateful: ``seqlab.generate.stateful_next`` carries each cell's state and
  reads one new id per step, one compiled ``RecurrentStepper`` call (what the
  CLI and the dashboard use);
- re-run: ``seqlab.decoding.context_next`` feeds the context so far (its last
  ``lookback`` ids, the model's window) to the model every step and keeps the
  last position's distribution.

Both must produce the same text (greedy, same weights); the script checks it
and prints the two rates once compiled, their ratio, and each first call
(which compiles its predict function).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

from seqlab import decoding  # noqa: E402
from seqlab.generate import prompt_ids, run_tokenizer, stateful_next  # noqa: E402
from seqlab.runs import RunStore  # noqa: E402
from seqlab.training import ExperimentSpec, run_experiment  # noqa: E402

PROMPT = "The for statement is used to iterate over"


def rate(next_fn, prompt: np.ndarray, tokens: int) -> tuple[float, float, list[int]]:
    """Seconds of the first (compiling) 2-token call, then tokens per second once compiled, and the ids."""
    started = time.perf_counter()
    decoding.greedy(next_fn, prompt, 2)
    first = time.perf_counter() - started
    started = time.perf_counter()
    [out] = decoding.greedy(next_fn, prompt, tokens)
    return first, tokens / (time.perf_counter() - started), list(out.tokens)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=200)
    parser.add_argument("--units", type=int, default=128)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as root:
        spec = ExperimentSpec("pydoc", "lstm", data_options={"characters": 100_000}, epochs=1,
                              model_options={"units": args.units})
        run = run_experiment(spec, store=RunStore(root))
        model = run.load_model()
        prompt = np.array([prompt_ids(run_tokenizer(run), PROMPT)])

        lookback = run.meta.input_shape[0]

        def last_position(context: np.ndarray) -> np.ndarray:
            # The model reads windows of `lookback` ids: the last ones, padded after their end
            # (the model is causal, so padding after position n never changes position n).
            window = context[:, -lookback:]
            padded = np.zeros((len(window), lookback), "int32")
            padded[:, : window.shape[1]] = window
            probs = model.predict_on_batch(padded)[:, window.shape[1] - 1]  # (rows, V) after the last id
            return np.log(np.maximum(probs, 1e-30))

        first_stateful, stateful, ids_stateful = rate(stateful_next(model), prompt, args.tokens)
        first_rerun, rerun, ids_rerun = rate(decoding.context_next(last_position), prompt, args.tokens)

    same = "yes" if ids_stateful == ids_rerun else "NO"
    print(f"character LSTM, {args.units} units, {args.tokens} greedy tokens after a {prompt.shape[1]}-token prompt "
          f"(window {lookback}), once compiled")
    print(f"stateful (one cell step per token):      {stateful:8.1f} tokens/s   first call {first_stateful:.2f} s")
    print(f"re-run (window of context every token): {rerun:8.1f} tokens/s   first call {first_rerun:.2f} s")
    print(f"ratio stateful / re-run:                 {stateful / rerun:8.2f}x   same text: {same}")


if __name__ == "__main__":
    main()
