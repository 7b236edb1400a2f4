"""Decoding: greedy, temperature / top-k / top-p sampling and beam search over a ``next`` function.

The decoders never see a model, only its step (as KerasHub's samplers see
``next(prompt, cache, index)``)::

    next(tokens, state) -> (log_probs, state)

``tokens`` are the int64 ids of shape ``(rows, n)`` that ``state`` has not
seen yet: the whole prompt on the first call, with ``state=None``, then the
one id chosen at the previous step. ``log_probs`` of shape
``(rows, vocabulary)`` are the log-probabilities of the token that follows
(anything ``np.asarray`` takes); ``state`` is whatever the model carries
(``None``, an array with rows on axis 0, or a tuple, list or dict of those:
beam search reorders its rows). So a recurrent model carries ``h`` and reads
one id per step, never the prompt again, and a model that re-reads its context
keeps the context as its state (``context_next`` writes that ``next``).

A bigram table needs only the last id::

    >>> import numpy as np
    >>> from seqlab import decoding
    >>> bigram = np.log([[0.1, 0.6, 0.3],   # p(next | 0)
    ...                  [0.5, 0.2, 0.3],   # p(next | 1)
    ...                  [0.3, 0.3, 0.4]])  # p(next | 2)
    >>> def next_fn(tokens, state):
    ...     return bigram[tokens[:, -1]], None
    >>> [out] = decoding.greedy(next_fn, [[0]], max_new_tokens=3)
    >>> out.tokens
    (1, 0, 1)
    >>> first = out.choices[0]  # TokenChoice(token, prob, alternatives)
    >>> first.token, round(first.prob, 6), [(i, round(p, 6)) for i, p in first.alternatives]
    (1, 0.6, [(1, 0.6), (2, 0.3), (0, 0.1)])

A recurrent model (sketch; ``cell`` maps an id and ``h`` to logits and the new ``h``)::

    def rnn_next(tokens, h):
        h = initial_state(len(tokens)) if h is None else h
        for t in range(tokens.shape[1]):  # the prompt once, then one id a step
            logits, h = cell(tokens[:, t], h)
        return decoding.log_softmax(logits), h

and a model that reads its last ``T`` ids::

    window_next = decoding.context_next(lambda context: model(context), window=T)

Every decoder returns one ``Generated`` per prompt: the new ids, and per id a
``TokenChoice(token, prob, alternatives)`` with the model's probability of it
and the top alternatives of that step, for colouring tokens by probability.
Ties rank the lower id first everywhere.
"""

import importlib

from seqlab.decoding.arguments import MAX_NEW_TOKENS, MAX_WIDTH
from seqlab.decoding.step import Generated, NextFn, TokenChoice, context_next, log_softmax

# Greedy decoding, sampling and beam search are written in keras.ops: they load on first use, so that checking a
# decoding argument (the CLI's parser, the listing commands) never starts Keras and TensorFlow.
_IN_KERAS = {
    "beam_search": "beam",
    "gnmt_length_penalty": "beam",
    "greedy": "greedy_search",
    **{name: "sampling" for name in ("draw", "filtered", "keep_top_k", "keep_top_p", "sample", "with_temperature")},
}


def __getattr__(name: str):
    if name in _IN_KERAS:
        return getattr(importlib.import_module(f"seqlab.decoding.{_IN_KERAS[name]}"), name)
    raise AttributeError(f"module 'seqlab.decoding' has no attribute {name!r}")


__all__ = [
    "MAX_NEW_TOKENS",
    "MAX_WIDTH",
    "Generated",
    "NextFn",
    "TokenChoice",
    "beam_search",
    "context_next",
    "draw",
    "filtered",
    "gnmt_length_penalty",
    "greedy",
    "keep_top_k",
    "keep_top_p",
    "log_softmax",
    "sample",
    "with_temperature",
]
