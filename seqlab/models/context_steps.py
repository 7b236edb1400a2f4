"""A language model that re-reads its last ids every step: the ``Steps`` of the Markov chain and the window model.

A Markov chain of order k reads its last k ids, the neural language model its
last ``T`` (its window, left-padded: ``window_steps``, which any model that
reads a window of ids and predicts the next at every position may declare).
Neither carries anything else, so the state is the context itself, cut to the
last ``window`` ids, rows first: beam search reorders it with the beams. In a
compiled loop (``step``) the context is a ``(rows, window)`` tensor, the ids
right-aligned after padding, beside ``count``, how many are real.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import numpy as np

from seqlab.models.steps import Steps
from seqlab.text import PAD_ID

# context (rows, n) with n <= window -> the next token's probabilities after each of its ids (rows, n, V)
Probabilities = Callable[[np.ndarray], np.ndarray]
# in keras.ops: context (rows, window) right-aligned after padding, count (rows,) real ids -> (rows, V) after the last
LastProbabilities = Callable[..., object]


class ContextSteps(Steps):
    """A model read on its last ``window`` ids at every step (module docstring).

    Args:
        probabilities_of: the model on a context ``(rows, n)``, ``n <= window``: ``(rows, n, V)``.
        window: how many of the last ids it reads.
        last_probabilities: the same in ``keras.ops`` (``LastProbabilities``), for ``step``; ``None``: no ``step``.
    """

    def __init__(self, probabilities_of: Probabilities, window: int,
                 last_probabilities: LastProbabilities | None = None):
        self.probabilities_of, self.window, self.last_probabilities = probabilities_of, window, last_probabilities
        self.in_graph = last_probabilities is not None

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

    def initial(self, rows) -> dict:
        from keras import ops  # only a compiled loop steps it: registering the family imports no Keras

        return {"context": ops.full((rows, self.window), PAD_ID, "int32"), "count": ops.zeros((rows,), "int32")}

    def step(self, x, state, t):
        from keras import ops  # only a compiled loop steps it: registering the family imports no Keras

        context = ops.concatenate([state["context"][:, 1:], ops.cast(x, "int32")[:, None]], axis=1)
        count = ops.minimum(state["count"] + 1, self.window)
        return self.last_probabilities(context, count), {"context": context, "count": count}

    def carried(self) -> dict:
        return {"context": (self.window,), "count": ()}


def left_aligned(context, count):
    """A right-aligned ``context`` ``(rows, window)`` with ``count`` real ids, turned so they come first (the
    padding after them), as a causal model reads them."""
    from keras import ops

    window = ops.shape(context)[1]
    return ops.take_along_axis(context, (ops.arange(window)[None, :] + window - count[:, None]) % window, axis=1)


def window_steps(model) -> ContextSteps:
    """A language model on its last ``T`` ids at every step, left-padded as the windows it was trained on."""
    window = int(model.inputs[0].shape[1])
    model = weakref.proxy(model)  # the steps are kept per model (seqlab.models.steps): never keep the model alive

    def probabilities_of(context):
        padded = np.full((len(context), window), PAD_ID, dtype="int32")
        padded[:, window - context.shape[1] :] = context
        return np.asarray(model.predict_on_batch(padded))[:, window - context.shape[1] :]

    def last_probabilities(context, count):
        return model(context, training=False)[:, -1]  # left-padded already

    return ContextSteps(probabilities_of, window, last_probabilities)

