"""Greedy decoding: the most probable id at every step."""

from __future__ import annotations

import numpy as np
from keras import ops

from seqlab.decoding.loop import autoregress
from seqlab.decoding.sampling import most_probable
from seqlab.decoding.step import Generated, NextFn


def greedy(
    next_fn: NextFn, prompts, max_new_tokens: int, *, eos_id: int | None = None, alternatives: int = 5
) -> list[Generated]:
    """Decode every prompt by taking the most probable id at each step.

    Args:
        next_fn: the model's step, ``next(tokens, state) -> (log_probs, state)``
            (see ``seqlab.decoding``).
        prompts: int ids of shape ``(prompts, length)``, all of one length.
        max_new_tokens: ids to add at most, 0 to ``MAX_NEW_TOKENS``.
        eos_id: the end token; a prompt stops when it is chosen (it is kept
            as the last id). ``None``: always ``max_new_tokens`` ids.
        alternatives: how many of the most probable ids each ``TokenChoice``
            lists.

    Returns:
        One ``Generated`` per prompt.
    """
    def pick(log_probs):
        return np.asarray(ops.convert_to_numpy(most_probable(log_probs)))

    return autoregress(next_fn, prompts, max_new_tokens, pick, eos_id, alternatives)
