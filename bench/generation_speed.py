"""Tokens per second of generation through the compiled loop: with the model's state (an LSTM's cells, a GPT's
key/value cache) and without it (re-reading the context every token), and the NumPy loop it replaced.

    python -m bench.generation_speed [--model both|lstm|gpt] [--tokens 200] [--units 128] [--gpt-tokens 256]

Every rate is greedy decoding of one prompt once compiled (the first call, which traces and compiles the loop,
is printed beside it):

- compiled, stateful: ``seqlab.tasks.language.generate.compiled_generate`` over the model's steps (``seqlab.models.steps``):
  one ``keras.ops.while_loop`` in one graph, the state carried as tensors (what ``python -m seqlab generate``,
  the dashboard and the SavedModel's ``generate`` run);
- compiled, recomputed: the same loop over ``seqlab.models.context_steps.recomputed_steps``: the whole model on
  the last ``T`` ids (the model's window) every token (for the GPT under XLA too, as its cached loop);
- NumPy loop: ``seqlab.decoding.greedy`` over ``seqlab.tasks.language.generate.language_next``, one Python step per token
  (the loop the CLI ran before).

The GPT (``--model gpt``): the ``gpt-shakespeare`` preset's network (4 blocks, width 128; untrained: the speed
does not depend on the weights) with a context of ``--context`` ids (default 256, so that 256 new tokens fit:
the preset's 64 makes the whole context too short to matter) generates ``--gpt-tokens`` characters. The LSTM
is trained one epoch on the pydoc text (``--units``). The stateful and recomputed texts agree while the
context fits; the script reports how many tokens agree.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from seqlab import decoding  # noqa: E402
from seqlab.tasks.language.generate import compiled_generate, language_next, prompt_ids, run_tokenizer  # noqa: E402
from seqlab.models.recomputed_steps import recomputed_steps  # noqa: E402
from seqlab.models.registry import steps_of  # noqa: E402
from seqlab.runs import RunStore  # noqa: E402
from seqlab.training import ExperimentSpec, run_experiment  # noqa: E402

PROMPT = "The for statement is used to iterate over"


def timed(generate, tokens: int) -> tuple[float, float, list[int]]:
    """Seconds of the first (compiling) call, then tokens per second of the same call once compiled, and the ids."""
    started = time.perf_counter()
    generate(tokens)  # the same widths: an XLA-compiled loop compiles once per buffer width
    first = time.perf_counter() - started
    started = time.perf_counter()
    ids = generate(tokens)
    return first, tokens / (time.perf_counter() - started), ids


def compiled_rate(steps, ids: list[int], tokens: int, vocabulary: int, xla: bool = False):
    steps.xla = steps.xla or xla  # recomputing under the cache's compiler: the two differ by the work per token
    return timed(lambda n: list(compiled_generate(steps, ids, n, temperature=0, vocabulary=vocabulary).tokens),
                 tokens)


def numpy_rate(steps, ids: list[int], tokens: int):
    return timed(lambda n: list(decoding.greedy(language_next(steps), [ids], n)[0].tokens), tokens)


def report(title: str, rates: dict, tokens: int, fits: int | None = None) -> None:
    (_, _, stateful), (_, _, recomputed) = rates["compiled, stateful"], rates["compiled, recomputed"]
    agree = next((i for i, (a, b) in enumerate(zip(stateful, recomputed)) if a != b), tokens)
    print(title)
    for name, (first, rate, _) in rates.items():
        print(f"  {name:<22} {rate:9.1f} tokens/s   first call {first:.2f} s")
    speedup = rates["compiled, stateful"][1] / rates["compiled, recomputed"][1]
    print(f"  stateful / recomputed  {speedup:9.2f}x     same tokens: the first {agree}"
          + ("" if fits is None else f" (the context fits {fits})"))
    print(f"  compiled / NumPy loop  {rates['compiled, stateful'][1] / rates['NumPy loop, stateful'][1]:9.2f}x")


def gpt_speed(tokens: int, context: int) -> None:
    """The GPT with and without its key/value cache (module docstring)."""
    from seqlab.data import load_dataset
    from seqlab.models import build_model
    from seqlab.training.presets import GPT_SHAKESPEARE

    spec = GPT_SHAKESPEARE.resolved()
    data = load_dataset(spec.dataset, **{**spec.data_options, "characters": 200_000, "lookback": context})
    model = build_model(spec.model, data, spec.model_options)
    ids, vocabulary = data.tokenizer.encode("ROMEO:\nBut soft, what light"), data.tokenizer.vocab_size
    rates = {
        "compiled, stateful": compiled_rate(steps_of(model), ids, tokens, vocabulary),
        "compiled, recomputed": compiled_rate(recomputed_steps(model), ids, tokens, vocabulary, xla=True),
        "NumPy loop, stateful": numpy_rate(steps_of(model), ids, tokens),
    }
    report(f"GPT (4 blocks, width 128, context {data.lookback}; untrained), {tokens} greedy tokens after a "
           f"{len(ids)}-token prompt", rates, tokens, data.lookback - len(ids))


def lstm_speed(tokens: int, units: int) -> None:
    with tempfile.TemporaryDirectory() as root:
        spec = ExperimentSpec("pydoc", "lstm", data_options={"characters": 100_000}, epochs=1,
                              model_options={"units": units})
        run = run_experiment(spec, store=RunStore(root))
        model, tokenizer = run.load_model(), run_tokenizer(run)
        ids = prompt_ids(tokenizer, PROMPT)
        rates = {
            "compiled, stateful": compiled_rate(steps_of(model), ids, tokens, tokenizer.vocab_size),
            "compiled, recomputed": compiled_rate(recomputed_steps(model), ids, tokens, tokenizer.vocab_size),
            "NumPy loop, stateful": numpy_rate(steps_of(model), ids, tokens),
        }
    report(f"character LSTM, {units} units, {tokens} greedy tokens after a {len(ids)}-token prompt "
           f"(window {run.meta.input_shape[0]})", rates, tokens)


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
    if args.model in ("both", "lstm"):
        lstm_speed(args.tokens, args.units)


if __name__ == "__main__":
    main()
