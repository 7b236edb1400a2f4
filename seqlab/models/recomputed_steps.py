"""A causal model re-read on its whole context for every token, with no cache: the reference for a GPT's
key/value cache (``seqlab.models.gpt_steps``) and the cost it saves, for any model that predicts the next token at
every position of a window (``ContextSteps`` on the last ``T`` ids, padded after their end)."""

from __future__ import annotations

import weakref

import numpy as np
from keras import ops

from seqlab.models.context_steps import ContextSteps, left_aligned
from seqlab.text import PAD_ID


def recomputed_steps(model) -> ContextSteps:
    """A causal model re-read on its last ``T`` ids (padded after their end) for every token, with no cache: the
    reference for a GPT's key/value cache (``seqlab.models.gpt_steps``) and the cost it saves; both give the same
    probabilities while the context fits in ``T``."""
    window = int(model.inputs[0].shape[1])
    model = weakref.proxy(model)

    def probabilities_of(context):
        padded = np.full((len(context), window), PAD_ID, dtype="int32")
        padded[:, : context.shape[1]] = context
        return np.asarray(model.predict_on_batch(padded))[:, : context.shape[1]]

    def last_probabilities(context, count):
        probabilities = model(left_aligned(context, count), training=False)
        return ops.take_along_axis(probabilities, (count - 1)[:, None, None], axis=1)[:, 0]

    return ContextSteps(probabilities_of, window, last_probabilities)
