"""Tokens per second of stateful generation (LSTM state, GPT key/value cache), beside re-running the context.

    python -m bench.generation_speed [--model both|lstm|gpt] [--tokens 200] [--units 128] [--gpt-tokens 256]

Trains a small character-level LSTM on the pydoc text (one epoch: the speed
does not depend on how well it learned), then greedily generates ``--tokens``
characters from the same prompt twice with ``seqlab.decoding.greedy``:

- stateful: ``seqlab.generate.language_next`` of the LSTM's steps
  (``seqlab.models.recurrent_steps``) carries each cell's state and reads one
  new id per step, one compiled call (what the CLI and the dashboard use);
- re-run: ``seqlab.decoding.context_next`` feeds the context so far (its last
  ``lookback`` ids, the model's window) to the model every step and keeps the
  last position's distribution.

Both must produce the same text (greedy, same weights); the script checks it
and prints the two rates once compiled, their ratio, and each first call
(which compiles its predict function).

The GPT (``--model gpt``): the ``gpt-shakespeare`` preset's network (4
blocks, width 128; untrained: the speed does not depend on the weights) with
a context of ``--context`` ids (default 256, so that 256 new tokens fit: the
preset's 64 makes the whole context too short to matter) generates
``--gpt-tokens`` characters greedily: with every block's key/value cache
(``seqlab.models.gpt_steps``, one compiled step per token; a full cache is
rebuilt from the last T/2 ids), and without (``seqlab.generate.recomputed_next``:
the whole model on the context every token). The texts agree while the context fits; the script
reports how many tokens agree.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

from seqlab import decoding  # noqa: E402
from seqlab.generate import language_next, prompt_ids, recomputed_next, run_tokenizer  # noqa: E402
from seqlab.models.registry import steps_of  # noqa: E402
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


def gpt_speed(tokens: int, context: int) -> None:
    """The GPT with and without its key/value cache (module docstring)."""
    from seqlab.data import load_dataset
    from seqlab.models import build_model
    from seqlab.training.presets import GPT_SHAKESPEARE

    spec = GPT_SHAKESPEARE.resolved()
    data = load_dataset(spec.dataset, **{**spec.data_options, "characters": 200_000, "lookback": context})
    model = build_model(spec.model, data, spec.model_options)
    prompt = np.array([data.tokenizer.encode("ROMEO:\nBut soft, what light")])
    first_cached, cached, ids_cached = rate(language_next(steps_of(model)), prompt, tokens)
    first_full, full, ids_full = rate(recomputed_next(model), prompt, tokens)
    agree = next((i for i, (a, b) in enumerate(zip(ids_cached, ids_full)) if a != b), tokens)
    print(f"GPT (4 blocks, width 128, context {data.lookback}; untrained), {tokens} greedy tokens after a "
          f"{prompt.shape[1]}-token prompt, once compiled")
    print(f"key/value cache (one step per token):     {cached:8.1f} tokens/s   first call {first_cached:.2f} s")
    print(f"recompute (the last {data.lookback} ids every token):  {full:8.1f} tokens/s   "
          f"first call {first_full:.2f} s")
    print(f"speed-up cache / recompute:               {cached / full:8.2f}x   same tokens: the first {agree} "
          f"(the context fits {data.lookback - prompt.shape[1]})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("both", "lstm", "gpt"), default="both")
    parser.add_argument("--tokens", type=int, default=200)
    parser.add_argument("--units", type=int, default=128)
    parser.add_argument("--gpt-tokens", type=int, default=256)
    parser.add_argument("--context", type=int, default=256, help="the GPT's context T (the preset's is 64)")
    args = parser.parse_args()
    if args.model in ("both", "gpt"):
        gpt_speed(args.gpt_tokens, args.context)
    if args.model == "gpt":
        return

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

        first_stateful, stateful, ids_stateful = rate(language_next(steps_of(model)), prompt, args.tokens)
        first_rerun, rerun, ids_rerun = rate(decoding.context_next(last_position), prompt, args.tokens)

    same = "yes" if ids_stateful == ids_rerun else "NO"
    print(f"character LSTM, {args.units} units, {args.tokens} greedy tokens after a {prompt.shape[1]}-token prompt "
          f"(window {lookback}), once compiled")
    print(f"stateful (one cell step per token):      {stateful:8.1f} tokens/s   first call {first_stateful:.2f} s")
    print(f"re-run (window of context every token): {rerun:8.1f} tokens/s   first call {first_rerun:.2f} s")
    print(f"ratio stateful / re-run:                 {stateful / rerun:8.2f}x   same text: {same}")


if __name__ == "__main__":
    main()
