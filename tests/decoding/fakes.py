"""Fake next() functions and steps for the decoders: fixed tables and histories, no model."""

from __future__ import annotations

import functools
import itertools

import numpy as np
from keras import ops

from seqlab.decoding import context_next, gnmt_length_penalty

# p(next | last id) over 4 ids; from 0 the greedy path is 0 -> 1 -> 2 -> 3 -> 3 ...
BIGRAM = np.array(
    [
        [0.05, 0.60, 0.25, 0.10],
        [0.10, 0.05, 0.70, 0.15],
        [0.20, 0.10, 0.05, 0.65],
        [0.30, 0.15, 0.05, 0.50],
    ]
)


def bigram_next(tokens, state):
    return np.log(BIGRAM[tokens[:, -1]]), None


# A recurrent model with a hashed state: log p(next | h) over 6 ids for 97 states.
RECURRENT_VOCABULARY, STATES = 6, 97
TABLE = np.log(np.random.default_rng(0).dirichlet(np.full(RECURRENT_VOCABULARY, 0.4), STATES))


def moved(h, ids):
    """A hash of the whole history: the recurrent state after ``ids``."""
    return (h * 31 + ids + 1) % STATES


def recurrent_step(ids, state, t):
    """The model as the compiled loops' ``step(ids, state, t)``, in ``keras.ops`` (float32)."""
    h = moved(state["h"], ops.cast(ids, "int32"))
    return ops.take(ops.convert_to_tensor(TABLE, "float32"), h, axis=0), {"h": h}


def recurrent_next(tokens, state):
    """The same model as a NumPy ``next(tokens, state)``."""
    h = np.zeros(len(tokens), dtype="int64") if state is None else state
    for t in range(tokens.shape[1]):
        h = moved(h, tokens[:, t])
    return TABLE[h], h


@functools.lru_cache(maxsize=None)
def history_log_probs(history: tuple[int, ...], vocabulary: int, salt: int) -> np.ndarray:
    """A peaked distribution that depends on the whole history (so greedy is often not the best path)."""
    rng = np.random.default_rng([salt, vocabulary, len(history), *history])
    return np.log(rng.dirichlet(np.full(vocabulary, 0.5)))


def history_next(vocabulary: int, salt: int):
    """A model that re-reads its whole context, through ``context_next``."""
    return context_next(lambda context: np.stack([history_log_probs(tuple(row), vocabulary, salt) for row in context]))


class StatefulHistory:
    """A recurrent-style model: its state (a dict holding a tuple) is the only memory of the history.

    It refuses to be given the prompt again: after the first call it accepts one id per row.
    """

    def __init__(self, vocabulary: int, salt: int):
        self.vocabulary, self.salt = vocabulary, salt
        self.calls = []  # shape of tokens of every call

    def __call__(self, tokens, state):
        self.calls.append(tokens.shape)
        if state is None:
            history = tokens
        else:
            assert tokens.shape[1] == 1, "a stateful model must only be given the last id"
            (history,), seen = state["memory"], state["seen"]
            assert (seen == history.shape[1]).all()
            history = np.concatenate([history, tokens], axis=1)
        log_probs = np.stack([history_log_probs(tuple(row), self.vocabulary, self.salt) for row in history])
        return log_probs, {"memory": (history,), "seen": np.full(len(history), history.shape[1])}


def brute_force(prompt, vocabulary, salt, max_new_tokens, eos_id=None, alpha=0.0):
    """Every possible continuation with its summed log-probability and score, best first."""
    found = []
    for length in range(1, max_new_tokens + 1):
        for tokens in itertools.product(range(vocabulary), repeat=length):
            if eos_id is not None and eos_id in tokens[:-1]:
                continue  # nothing follows EOS
            if length < max_new_tokens and tokens[-1] != eos_id:
                continue  # only EOS ends a hypothesis early
            total = sum(
                history_log_probs(tuple(prompt) + tokens[:i], vocabulary, salt)[token] for i, token in enumerate(tokens)
            )
            found.append((total / gnmt_length_penalty(length, alpha), total, tokens))
    return sorted(found, key=lambda item: -item[0])
