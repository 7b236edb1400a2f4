"""BERT pre-training's step: the softmax at the chosen words only, against a plain Keras model's at every position.

    [KERAS_BACKEND=jax] python -m bench.bert_step [--steps 40] [--vocab-size 10000] [--width 64]

Both train the same network (``bert`` on ``movie_reviews_mlm``: 2 blocks,
the dataset's vocabulary) on the same batches of 64 pairs:

- seqlab: ``MaskedLMModel``'s step (pairs and masking drawn anew, the
  vocabulary's softmax at the chosen positions only);
- peer: the same layers as a plain ``keras.Model``, its one output ``(B, T, V)``
  trained with Keras's ``sparse_categorical_crossentropy`` (``ignore_class``
  0: the positions without a word to guess), on the training split masked
  once: the softmax over the vocabulary at every position.

Prints milliseconds per step of each, once compiled, and their ratio.
"""

from __future__ import annotations

import argparse
import time

import keras
import numpy as np

from seqlab.data import load_dataset
from seqlab.data.bert_pretraining import mask_held_out
from seqlab.models import build_model
from seqlab.training import ExperimentSpec
from seqlab.training.optimizer import compile_model

BATCH = 64


def ms_per_step(model: keras.Model, x: np.ndarray, y: np.ndarray, steps: int) -> float:
    model.fit(x[: 2 * BATCH], y[: 2 * BATCH], batch_size=BATCH, epochs=1, verbose=0)  # compiles
    started = time.perf_counter()
    model.fit(x[: steps * BATCH], y[: steps * BATCH], batch_size=BATCH, epochs=1, verbose=0)
    return 1000 * (time.perf_counter() - started) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--vocab-size", type=int, default=0, help="0: the dataset's, 10,000 words")
    parser.add_argument("--width", type=int, default=64)
    args = parser.parse_args()
    corpus = load_dataset("movie_reviews_mlm", **({"vocab_size": args.vocab_size} if args.vocab_size else {}))
    sizes = {"layers": 2, "heads": 4, "width": args.width, "ff_units": 4 * args.width}
    spec = ExperimentSpec("movie_reviews_mlm", "bert", {}, sizes, batch_size=BATCH).resolved()
    keras.utils.set_random_seed(0)
    model = compile_model(build_model("bert", corpus, sizes), spec, corpus)
    train = corpus.splits["train"]
    if args.steps * BATCH > len(train.x):
        raise SystemExit(f"--steps {args.steps} needs {args.steps * BATCH:,} pairs; the split has {len(train.x):,}.")
    ours = ms_per_step(model, train.x, train.y, args.steps)
    peer = keras.Model(model.inputs, model.outputs)  # the same layers, Keras's own step and loss
    peer.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(ignore_class=0))
    x, y = mask_held_out(train.x, train.y, corpus.tokenizer.vocab_size, seed=0)
    theirs = ms_per_step(peer, x, y, args.steps)
    print(f"{keras.backend.backend()}, vocabulary {corpus.tokenizer.vocab_size:,}, width {args.width}, batch {BATCH} "
          f"pairs of {corpus.lookback} tokens: seqlab {ours:.0f} ms per step, plain Keras {theirs:.0f} ms "
          f"({theirs / ours:.1f}x)")


if __name__ == "__main__":
    main()
