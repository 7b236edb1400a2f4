"""The language task's baselines: the unigram model and the best Markov chain of orders 1 to 5."""

from __future__ import annotations

import numpy as np

from seqlab.data.sequence_data import SequenceData
from seqlab.tasks.classify.task import EPSILON
from seqlab.tasks.text_inputs import tokenizer_of

MARKOV_ORDERS = (1, 2, 3, 4, 5)
# Add-alpha of the Markov baselines and the markov architecture's default: measured on pydoc (char, order 4),
# alpha 1 gives 2.91 bits per character, 0.1 gives 2.18, 0.01 gives 2.07 (smoothing mass spread over V).
MARKOV_ALPHA = 0.01
MARKOV_CELLS = 4_000_000  # log-probabilities (b, T, V) scored at once: 32 MB for each of the lookup's arrays


def unigram(train_ids: np.ndarray, vocab_size: int) -> np.ndarray:
    """Add-one smoothed token frequencies ``(V,)`` of the training targets: no token has probability 0."""
    counts = np.bincount(np.asarray(train_ids).reshape(-1), minlength=vocab_size).astype("float64")
    return (counts + 1.0) / (counts.sum() + vocab_size)


def markov_predictions(chain, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A fitted chain's probability of each target ``(N, T)`` and its most probable tokens, window by window."""
    import keras

    p_true, choices = np.empty(y.shape), np.empty(y.shape, dtype="int64")
    batch = max(1, MARKOV_CELLS // (y.shape[1] * chain.vocab_size))  # a large vocabulary: fewer windows at once
    for start in range(0, len(x), batch):
        rows = slice(start, start + batch)
        log_probs = keras.ops.convert_to_numpy(chain(x[rows]))  # (b, T, V): log p(next | the window so far)
        p_true[rows] = np.exp(np.take_along_axis(log_probs, y[rows][..., None], axis=-1)[..., 0])
        choices[rows] = log_probs.argmax(axis=-1)
    return p_true, choices


def best_markov_chain(data: SequenceData, y: np.ndarray) -> tuple[str, np.ndarray, np.ndarray]:
    """``(name, p_true, choices)`` of the Markov order with the lowest held-out cross-entropy."""
    from seqlab.data.text_windows import split_ids
    from seqlab.layers.markov import MarkovChain

    train, test, vocab = split_ids(data, "train"), data.splits["test"], tokenizer_of(data).vocab_size
    best = None
    for order in MARKOV_ORDERS:
        chain = MarkovChain(order, vocab, alpha=MARKOV_ALPHA).fit(train)
        p_true, choices = markov_predictions(chain, test.x, y)
        cross_entropy = -np.mean(np.log(np.clip(p_true, EPSILON, 1.0)))
        if best is None or cross_entropy < best[0]:
            best = (cross_entropy, f"markov_order_{order}", p_true, choices)
    return best[1:]
