"""Seconds of a translator's beam search through the compiled loop, beside greedy decoding.

    python -m bench.beam_speed [--width 4] [--tokens 20] [--sources 1,16] [--units 64] [--repeats 5]

A recurrent encoder-decoder (GRU with Bahdanau's attention, ``--units``; untrained: the speed does not depend on
the weights) built for ``toy_pairs``, its ``[EOS]`` bias lowered so that every hypothesis runs the full
``--tokens``, decodes the first ``--sources`` test sources by ``seqlab.tasks.translate.translation.decode_ids``
(what ``python -m seqlab translate`` runs): beam search of ``--width`` and greedy, each through its loop
compiled once (``seqlab.decoding.beam``, ``seqlab.decoding.while_loop``). Prints the first call (which traces and
compiles) and the median of ``--repeats`` calls after it. Run from an older checkout, the same script times that
checkout's ``decode_ids`` (its NumPy beam search, until it was replaced).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

from seqlab.data import load_dataset  # noqa: E402
from seqlab.data.text_pairs import EOS_ID, START_ID  # noqa: E402
from seqlab.models import build_model  # noqa: E402
from seqlab.tasks.translate.translation import decode_ids  # noqa: E402


def never_ending(units: int):
    """The untrained translator, its output bias for ``[EOS]`` at -30 (``[EOS]`` is never among the best)."""
    data = load_dataset("toy_pairs", transform="reverse", samples=300, min_length=2, max_length=5)
    model = build_model("seq2seq", data, {"cell": "gru", "units": units, "embedding_dim": 32,
                                          "attention": "bahdanau"})
    vocabulary = data.target_tokenizer.vocab_size
    weights = model.get_weights()
    bias = next(i for i in reversed(range(len(weights))) if weights[i].shape == (vocabulary,))  # the output layer's
    weights[bias][EOS_ID] = -30.0
    model.set_weights(weights)
    return model, data.splits["test"].x


def timed(decode, repeats: int) -> tuple[float, float, list]:
    """The first call's seconds, the median seconds of ``repeats`` calls after it, and what the last returned."""
    started = time.perf_counter()
    found = decode()
    first, seconds = time.perf_counter() - started, []
    for _ in range(repeats):
        started = time.perf_counter()
        found = decode()
        seconds.append(time.perf_counter() - started)
    return first, statistics.median(seconds), found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=20)
    parser.add_argument("--sources", default="1,16", help="comma-separated numbers of source rows per call")
    parser.add_argument("--units", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    model, sources = never_ending(args.units)
    print(f"GRU {args.units} units, Bahdanau attention (untrained), {args.tokens} tokens")
    for rows in (int(n) for n in args.sources.split(",")):
        x = np.asarray(sources[:rows])
        for name, width in (("greedy", 1), (f"beam {args.width}", args.width)):
            first, median, found = timed(lambda: decode_ids(model, x, START_ID, EOS_ID, args.tokens, width),
                                         args.repeats)
            written = np.mean([len(g.tokens) for g in found])
            print(f"  {rows:>3} sources, {name:<8} {median * 1000:8.1f} ms a call ({1000 * median / rows:6.1f} ms "
                  f"a source)   first call {first:.2f} s   {written:.0f} tokens written")


if __name__ == "__main__":
    main()
