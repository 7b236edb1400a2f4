"""The language task's baselines: the unigram model and the best Markov chain of orders 1 to 5.

The Markov chains depend on the data alone, never on the model: ``markov_baseline``
computes them once per data content (the training ids, the test windows, the
vocabulary and this code) and keeps them, in memory for this process and as a
file in the cache folder (``$SEQLAB_CACHE``, ``baselines/``) for the next ones,
so every run of a lesson or a sweep on one text after the first scores its
baselines at once. Counting and scoring them report their steps (``seqlab.progress``).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np

from seqlab.data.corpora.cache import cache_dir
from seqlab.data.sequence_data import SequenceData
from seqlab.progress import report
from seqlab.tasks.classify.task import EPSILON
from seqlab.tasks.text_inputs import tokenizer_of

MARKOV_ORDERS = (1, 2, 3, 4, 5)
# Add-alpha of the Markov baselines and the markov architecture's default: measured on pydoc (char, order 4),
# alpha 1 gives 2.91 bits per character, 0.1 gives 2.18, 0.01 gives 2.07 (smoothing mass spread over V).
MARKOV_ALPHA = 0.01
MARKOV_CELLS = 4_000_000  # log-probabilities (b, T, V) scored at once: 32 MB for each of the lookup's arrays
COUNTING = "computing the baselines: Markov chains of orders 1 to 5 (once per dataset)"
READ_BACK = "the baselines of this dataset, computed before: read back"
KEPT_IN_MEMORY = 4  # the datasets whose baselines this process keeps (each (N, T) float64 and int64)
_KEPT: OrderedDict[str, tuple[str, np.ndarray, np.ndarray]] = OrderedDict()
_KEPT_LOCK = threading.Lock()


def unigram(train_ids: np.ndarray, vocab_size: int) -> np.ndarray:
    """Add-one smoothed token frequencies ``(V,)`` of the training targets: no token has probability 0."""
    counts = np.bincount(np.asarray(train_ids).reshape(-1), minlength=vocab_size).astype("float64")
    return (counts + 1.0) / (counts.sum() + vocab_size)


def markov_rows(steps: int, vocab_size: int) -> int:
    """The windows of ``steps`` positions scored at once: about ``MARKOV_CELLS`` log-probabilities, at least one."""
    return max(1, MARKOV_CELLS // (steps * vocab_size))  # a large vocabulary: fewer windows at once


def markov_predictions(chain, x: np.ndarray, y: np.ndarray, scored=lambda: None) -> tuple[np.ndarray, np.ndarray]:
    """A fitted chain's probability of each target ``(N, T)`` and its most probable tokens, window by window;
    ``scored()`` is called after every ``markov_rows`` of them."""
    import keras

    p_true, choices = np.empty(y.shape), np.empty(y.shape, dtype="int64")
    batch = markov_rows(y.shape[1], chain.vocab_size)
    for start in range(0, len(x), batch):
        rows = slice(start, start + batch)
        log_probs = keras.ops.convert_to_numpy(chain(x[rows]))  # (b, T, V): log p(next | the window so far)
        p_true[rows] = np.exp(np.take_along_axis(log_probs, y[rows][..., None], axis=-1)[..., 0])
        choices[rows] = log_probs.argmax(axis=-1)
        scored()
    return p_true, choices


def lower_order(chain, order: int):
    """The fitted chain of ``order`` inside a fitted chain of a higher order: ``count_grams`` numbers the grams
    level by level, each from the levels below it, so the lower chain's keys, counts and totals are the first
    of the higher one's, and one counting of the text serves every order."""
    from seqlab.layers.markov import MarkovChain

    lower = MarkovChain(order, chain.vocab_size, alpha=chain.alpha, backoff=chain.backoff)
    lower.build_from_config({"sizes": chain.sizes[: order + 1]})
    grams, contexts = sum(chain.sizes[: order + 1]), 1 + sum(chain.sizes[:order])
    lower.keys.assign(chain.keys[:grams])
    lower.counts.assign(chain.counts[:grams])
    lower.totals.assign(chain.totals[:contexts])
    return lower


def markov_p_true(chain, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """A fitted chain's probability of each target ``(N, T)``, as ``markov_predictions`` gives it, from the target
    alone: the window and its targets are one run of ids, ``x_1, y_1 .. y_T``, scored token by token
    (``token_log_probs``), never as ``(N, T, V)``."""
    import keras

    p_true = np.empty(y.shape)
    batch = max(1, MARKOV_CELLS // (y.shape[1] + 1))
    for start in range(0, len(x), batch):
        rows = slice(start, start + batch)
        ids = np.concatenate([x[rows][:, :1], y[rows]], axis=1)  # (b, T + 1)
        p_true[rows] = np.exp(keras.ops.convert_to_numpy(chain.token_log_probs(ids))[:, 1:])
    return p_true


def best_markov_chain(data: SequenceData, y: np.ndarray) -> tuple[str, np.ndarray, np.ndarray]:
    """``(name, p_true, choices)`` of the Markov order with the lowest held-out cross-entropy.

    The text is counted once, at the highest order (``lower_order`` gives the others); every order scores the
    targets alone (``markov_p_true``), and only the best one the whole distribution, for its most probable tokens.
    The counting, each order's score and each ``markov_rows`` of the best one's choices are the steps reported
    (``COUNTING``).
    """
    from seqlab.data.text_windows import split_ids
    from seqlab.layers.markov import MarkovChain

    train, test, vocab = split_ids(data, "train"), data.splits["test"], tokenizer_of(data).vocab_size
    total = 1 + len(MARKOV_ORDERS) + math.ceil(len(test.x) / markov_rows(y.shape[1], vocab))
    done = itertools.count(1)
    report(COUNTING, 0, total, "steps")

    def step() -> None:
        report(COUNTING, next(done), total, "steps")

    counted = MarkovChain(max(MARKOV_ORDERS), vocab, alpha=MARKOV_ALPHA).fit(train)
    step()
    best = None
    for order in MARKOV_ORDERS:
        chain = lower_order(counted, order)
        p_true = markov_p_true(chain, test.x, y)
        step()
        cross_entropy = -np.mean(np.log(np.clip(p_true, EPSILON, 1.0)))
        if best is None or cross_entropy < best[0]:
            best = (cross_entropy, order, p_true, chain)
    _, order, p_true, chain = best
    return f"markov_order_{order}", p_true, markov_predictions(chain, test.x, y, step)[1]


def baseline_key(data: SequenceData, y: np.ndarray) -> str:
    """SHA-256 of what the Markov baselines depend on: the training ids, the test windows and targets, the
    vocabulary, the orders and smoothing, and the source of this module and of the chain that counts."""
    from seqlab.data.text_windows import split_ids
    from seqlab.layers.markov import markov_chain

    digest = hashlib.sha256()
    for array in (split_ids(data, "train"), data.splits["test"].x, y):
        array = np.ascontiguousarray(array, dtype="int64")
        digest.update(f"{array.shape}\0".encode())
        digest.update(array.tobytes())
    digest.update(f"{tokenizer_of(data).vocab_size} {MARKOV_ORDERS} {MARKOV_ALPHA}\0".encode())
    for module in (__file__, markov_chain.__file__):
        digest.update(Path(module).read_bytes())
    return digest.hexdigest()


def cached_file(key: str) -> Path | None:
    """Where the baselines of ``key`` are kept between processes; ``None`` when the cache folder cannot be made
    (they are then kept for this process only)."""
    try:
        return cache_dir("baselines") / f"{key}.npz"
    except ValueError:
        return None


def markov_baseline(data: SequenceData, y: np.ndarray) -> tuple[str, np.ndarray, np.ndarray]:
    """``best_markov_chain`` of ``data``, computed once per data content (module docstring)."""
    key = baseline_key(data, y)
    with _KEPT_LOCK:  # jobs of several sessions may evaluate at once
        kept = _KEPT.pop(key, None)
    kept = kept or read_kept(cached_file(key))
    if kept is None:
        kept = keep(cached_file(key), best_markov_chain(data, y))
    else:
        report(READ_BACK, 1, 1, "steps")
    with _KEPT_LOCK:
        _KEPT[key] = kept  # the most recently used last
        while len(_KEPT) > KEPT_IN_MEMORY:
            _KEPT.popitem(last=False)
    return kept


def read_kept(path: Path | None) -> tuple[str, np.ndarray, np.ndarray] | None:
    """The baselines kept in ``path``; ``None`` when there are none (or the file is damaged: computed anew)."""
    if path is None or not path.is_file():
        return None
    try:
        with np.load(path) as kept:
            return str(kept["name"]), kept["p_true"], kept["choices"]
    except (OSError, ValueError, KeyError):
        return None


def keep(path: Path | None, baseline: tuple[str, np.ndarray, np.ndarray]) -> tuple[str, np.ndarray, np.ndarray]:
    """Write ``baseline`` to ``path`` (whole or not at all: another process may read it), and return it."""
    if path is not None:
        partial = path.with_name(f"{path.stem}.{os.getpid()}.partial.npz")
        name, p_true, choices = baseline
        try:
            np.savez(partial, name=name, p_true=p_true, choices=choices)
            os.replace(partial, path)
        except OSError:  # a full or read-only cache: kept in memory only
            partial.unlink(missing_ok=True)
    return baseline
