"""One decoding step: the ``next(tokens, state)`` contract and the record of each chosen token.

The contract (see the package docstring for an example)::

    next(tokens, state) -> (log_probs, state)

* ``tokens``: int64 ``(rows, n)``, the ids ``state`` has not seen yet: the
  whole prompt on the first call (``state`` is ``None``), then the one id chosen
  at the previous step (``n == 1``).
* ``log_probs``: ``(rows, vocabulary)``, the log-probabilities of the token that
  follows the last id of each row (anything ``np.asarray`` takes: NumPy, a
  TensorFlow or JAX array). Each row's ``exp`` sums to 1 (to 1e-3 in log
  space); ``-inf`` marks an impossible token.
* ``state``: whatever the model carries between calls (an RNN's ``h`` and
  ``c``, a cache of keys and values, the context so far), or ``None``. It is
  opaque to the decoders except that beam search reorders its rows; so it is
  ``None``, an array with rows on axis 0, or a tuple, list or dict of those.

A recurrent model carries its state and reads one id per step, never the
prompt again. A model that re-reads its whole context (a Markov chain, the
window language model, a Transformer without cache) keeps the context as its
state: ``context_next`` writes that ``next`` from a plain ``context -> log_probs``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from seqlab.decoding.ranking import top_ids

NextFn = Callable[[np.ndarray, Any], tuple[Any, Any]]

# How far a row's logsumexp may stray from 0 and still count as log-probabilities
# (a float32 softmax over 50k tokens is good to about 1e-5; logits are far off).
NORMALISATION_TOLERANCE = 1e-3


@dataclass(frozen=True)
class TokenChoice:
    """One generated token, as the dashboard colours it.

    Attributes:
        token: the id chosen.
        prob: its probability under the model, ``exp(log_probs[token])``, before
            any temperature, top-k or top-p.
        alternatives: the most probable ids of that step, ``(id, prob)`` pairs,
            most probable first (ties: lower id first); the chosen id is among
            them when it ranks high enough.
    """

    token: int
    prob: float
    alternatives: tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class Generated:
    """The tokens decoded after one prompt.

    Attributes:
        tokens: the new ids (the prompt not repeated), the EOS id last when reached.
        choices: one ``TokenChoice`` per id of ``tokens``.
        log_prob: the model's log-probability of ``tokens`` given the prompt,
            the sum of ``log(choice.prob)``.
        score: what beam search ranks by, ``log_prob`` over the length penalty;
            ``log_prob`` itself for greedy decoding and sampling.
        finished: whether the last id is the EOS id (otherwise
            ``max_new_tokens`` ran out).
    """

    tokens: tuple[int, ...]
    choices: tuple[TokenChoice, ...]
    log_prob: float
    score: float
    finished: bool


def logsumexp(x: np.ndarray) -> np.ndarray:
    """``log(sum(exp(x)))`` over the last axis, kept as a column; stable for large entries."""
    peak = np.max(x, axis=-1, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)  # a row of -inf gives -inf, not NaN
    return peak + np.log(np.sum(np.exp(x - peak), axis=-1, keepdims=True))


def log_softmax(logits) -> np.ndarray:
    """``logits - logsumexp(logits)`` over the last axis in float64, for a model that gives logits."""
    x = np.asarray(logits, dtype=np.float64)
    return x - logsumexp(x)


def context_next(log_probs_of: Callable[[np.ndarray], Any], window: int | None = None) -> NextFn:
    """A ``next`` for a model that reads its whole context (or its last ``window`` ids) every step.

    ``log_probs_of(context)`` maps int64 ``(rows, length)`` ids to the
    ``(rows, vocabulary)`` log-probabilities of the token after them; the
    context so far is the state, so beam search reorders it with the beams.
    """
    if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window < 1):
        raise ValueError(f"window must be a positive integer or None, got {window!r}.")

    def next_fn(tokens, state):
        context = tokens if state is None else np.concatenate([state, tokens], axis=1)
        if window is not None:
            context = context[:, -window:]  # (rows, <= window): all the model reads
        return log_probs_of(context), context

    return next_fn


def call_next(next_fn: NextFn, tokens: np.ndarray, state, vocabulary: int | None = None):
    """``next_fn(tokens, state)`` checked: float64 log-probabilities ``(rows, vocabulary)`` and the new state.

    ``vocabulary`` is the size the first call returned (``None`` on the first call).
    """
    returned = next_fn(tokens, state)
    if not isinstance(returned, tuple) or len(returned) != 2:
        raise ValueError(
            f"next() must return a pair (log_probs, state), got {type(returned).__name__}; "
            "return (log_probs, None) for a model without state."
        )
    log_probs, state = returned
    log_probs = np.asarray(log_probs, dtype=np.float64)
    rows = tokens.shape[0]
    if log_probs.ndim != 2 or log_probs.shape[0] != rows or log_probs.shape[1] < 1:
        raise ValueError(
            f"next() must return log-probabilities of shape (rows, vocabulary) with rows = {rows}, "
            f"got shape {log_probs.shape}; return only the distribution after the last id "
            "(e.g. log_probs[:, -1, :])."
        )
    if vocabulary is not None and log_probs.shape[1] != vocabulary:
        raise ValueError(
            f"next() returned {log_probs.shape[1]} log-probabilities per row after {vocabulary} "
            "on the first call; the vocabulary must stay the same."
        )
    bad = np.isnan(log_probs) | (log_probs == np.inf)
    if bad.any():
        row, token = np.argwhere(bad)[0]
        raise ValueError(
            f"next() returned {log_probs[row, token]} as the log-probability of id {token} in row {row}; "
            "log-probabilities must be finite or -inf (a NaN usually means the model diverged)."
        )
    impossible = np.all(log_probs == -np.inf, axis=1)
    if impossible.any():
        raise ValueError(
            f"next() gave every token probability 0 (log-probability -inf) in row {np.argmax(impossible)}; "
            "at least one token must be possible."
        )
    total = logsumexp(log_probs)[:, 0]  # 0 for log-probabilities
    off = np.abs(total) > NORMALISATION_TOLERANCE
    if off.any():
        row = int(np.argmax(off))
        raise ValueError(
            f"next() must return log-probabilities, but exp(log_probs) sums to {np.exp(total[row]):.6g} "
            f"in row {row}; pass a model's logits through seqlab.decoding.log_softmax."
        )
    return log_probs - total[:, None], state  # exactly normalised: the probabilities shown sum to 1


def choices_of(log_probs: np.ndarray, tokens: np.ndarray, alternatives: int) -> list[TokenChoice]:
    """One ``TokenChoice`` per row: ``tokens[r]`` and the ``alternatives`` most probable ids of row ``r``."""
    probs = np.exp(log_probs)
    best = top_ids(log_probs, alternatives)
    best_probs = np.take_along_axis(probs, best, axis=-1)
    return [
        TokenChoice(
            token=int(token),
            prob=float(probs[row, token]),
            alternatives=tuple(zip(best[row].tolist(), best_probs[row].tolist())),
        )
        for row, token in enumerate(tokens)
    ]
