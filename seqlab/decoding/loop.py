"""The autoregressive loop that greedy decoding and sampling share: one id per prompt per step."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from seqlab.decoding.arguments import (
    check_alternatives,
    check_eos_id,
    check_ids_in_vocabulary,
    check_max_new_tokens,
    check_prompts,
)
from seqlab.decoding.step import Generated, NextFn, call_next, choices_of

# pick(log_probs) -> ids: (rows, vocabulary) checked log-probabilities to (rows,) int ids
Pick = Callable[[np.ndarray], np.ndarray]


def autoregress(
    next_fn: NextFn, prompts, max_new_tokens: int, pick: Pick, eos_id: int | None, alternatives: int
) -> list[Generated]:
    """Extend every prompt by ``pick``'s ids until its EOS id or ``max_new_tokens``.

    ``next_fn`` sees the prompts once, then only the id chosen last (a stateful
    model never re-reads the prompt). A prompt that reached EOS is fed EOS again
    while the others go on, and its further ids are dropped.
    """
    prompts = check_prompts(prompts)
    max_new_tokens = check_max_new_tokens(max_new_tokens)
    eos_id = check_eos_id(eos_id)
    alternatives = check_alternatives(alternatives)
    batch = prompts.shape[0]
    chosen = [[] for _ in range(batch)]
    if max_new_tokens == 0:
        return [Generated((), (), 0.0, 0.0, False) for _ in range(batch)]
    log_probs, state = call_next(next_fn, prompts, None)
    vocabulary = log_probs.shape[1]
    check_ids_in_vocabulary(prompts, eos_id, vocabulary)
    done = np.zeros(batch, dtype=bool)
    for step in range(max_new_tokens):
        ids = np.asarray(pick(log_probs), dtype=np.int64)  # (batch,)
        for row, choice in enumerate(choices_of(log_probs, ids, alternatives)):
            if not done[row]:
                chosen[row].append(choice)
        if eos_id is not None:
            ids = np.where(done, eos_id, ids)
            done |= ids == eos_id
        if done.all() or step == max_new_tokens - 1:
            break  # no call for a token nobody will read
        log_probs, state = call_next(next_fn, ids[:, None], state, vocabulary)
    return [_generated(choices, eos_id) for choices in chosen]


def _generated(choices: list, eos_id: int | None) -> Generated:
    log_prob = float(np.sum(np.log([choice.prob for choice in choices])))
    tokens = tuple(choice.token for choice in choices)
    return Generated(tokens, tuple(choices), log_prob, log_prob, bool(tokens) and tokens[-1] == eos_id)
