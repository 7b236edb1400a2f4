"""A language model that re-reads its last ids every step: the ``Steps`` of the Markov chain and the window model.

A Markov chain of order k reads its last k ids, the neural language model its
last ``T`` (its window, left-padded: ``window_steps``, which any model that
reads a window of ids and predicts the next at every position may declare).
Neither carries anything else, so the state is the context itself, cut to the
last ``window`` ids, rows first: beam search reorders it with the beams.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import numpy as np

from seqlab.models.steps import Steps
from seqlab.text import PAD_ID

# context (rows, n) with n <= window -> the next token's probabilities after each of its ids (rows, n, V)
Probabilities = Callable[[np.ndarray], np.ndarray]


class ContextSteps(Steps):
    """A model read on its last ``window`` ids at every step (module docstring).

    Args:
        probabilities_of: the model on a context ``(rows, n)``, ``n <= window``: ``(rows, n, V)``.
        window: how many of the last ids it reads.
    """

    def __init__(self, probabilities_of: Probabilities, window: int):
        self.probabilities_of, self.window = probabilities_of, window

    def start(self, rows: int) -> np.ndarray:
        return np.zeros((rows, 0), dtype="int64")

    def read(self, ids, state):
        """``(probabilities (rows, n', V), state)`` after ``ids``: one call on the last ``window`` ids of the
        context, so ``n' <= window`` (the last is the one after ``ids``)."""
        context = np.concatenate([state, np.asarray(ids, dtype="int64")], axis=1)[:, -self.window :]
        read = min(np.shape(ids)[1], context.shape[1])
        return np.asarray(self.probabilities_of(context))[:, -read:], context

    def next(self, x, state, t):
        probabilities, context = self.read(np.asarray(x)[:, None], state)
        return probabilities[:, -1], context


def window_steps(model) -> ContextSteps:
    """A language model on its last ``T`` ids at every step, left-padded as the windows it was trained on."""
    window = int(model.inputs[0].shape[1])
    model = weakref.proxy(model)  # the steps are kept per model (seqlab.models.steps): never keep the model alive

    def probabilities_of(context):
        padded = np.full((len(context), window), PAD_ID, dtype="int32")
        padded[:, window - context.shape[1] :] = context
        return np.asarray(model.predict_on_batch(padded))[:, window - context.shape[1] :]

    return ContextSteps(probabilities_of, window)
