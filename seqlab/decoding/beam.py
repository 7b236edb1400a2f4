r"""Beam search: the ``width`` most probable partial sequences per prompt, extended together.

Equations:
    $$ s(y_{1:t}) = \sum_{i=1}^{t} \log p(y_i \mid x, y_{<i}) $$

    $$ \text{score}(y_{1:t}) = \frac{s(y_{1:t})}{\mathrm{lp}(t)}, \qquad
       \mathrm{lp}(t) = \left(\frac{5 + t}{6}\right)^{\alpha} $$

    The length penalty is GNMT's (Wu et al., 2016), with $t$ the number of
    generated ids, EOS included; $\alpha = 0$ (the default) ranks by the plain
    sum $s$, which favours short hypotheses, and $\alpha$ near 0.6 to 1
    offsets that.

At each step every live beam is extended by every id; among those candidates
the ``width`` best without EOS live on, and a candidate ending in EOS that
ranks within the best ``width`` is finished and kept (the best ``width``
finished ones). A prompt stops early when no live beam can still beat its
worst kept hypothesis; at ``max_new_tokens`` the live beams compete with the
finished ones. Scores within a step share one length, so ranking candidates by
$s$ ranks them by score. Width 1 (with $\alpha = 0$) is greedy decoding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqlab.decoding.arguments import (
    check_alternatives,
    check_eos_id,
    check_ids_in_vocabulary,
    check_length_penalty,
    check_max_new_tokens,
    check_prompts,
    check_width,
)
from seqlab.decoding.ranking import top_ids
from seqlab.decoding.step import Generated, NextFn, TokenChoice, call_next, choices_of, take_rows


def gnmt_length_penalty(length: int, alpha: float) -> float:
    """``((5 + length) / 6) ** alpha``: the divisor of a hypothesis's summed log-probability."""
    return ((5 + length) / 6) ** alpha


@dataclass(frozen=True)
class _Step:
    """The live beams after one step: each one's beam of the step before, and its chosen id."""

    parents: np.ndarray  # (batch, width) beam index at the step before
    choices: list[TokenChoice]  # batch * width, beam w of prompt b at b * width + w


@dataclass(frozen=True)
class _Hypothesis:
    score: float
    log_prob: float
    step: int  # ids before the last one
    beam: int  # the live beam after `step` steps that the last id extends
    last: TokenChoice
    finished: bool  # the last id is EOS


def beam_search(
    next_fn: NextFn,
    prompts,
    max_new_tokens: int,
    *,
    width: int = 4,
    length_penalty: float = 0.0,
    eos_id: int | None = None,
    all_beams: bool = False,
    alternatives: int = 5,
) -> list[Generated] | list[list[Generated]]:
    """Decode every prompt by beam search.

    Args:
        next_fn: the model's step, ``next(tokens, state) -> (log_probs, state)``
            (see ``seqlab.decoding``); it is called with ``prompts * width``
            rows after the first call, and its state's rows are reordered as
            beams are chosen.
        prompts: int ids of shape ``(prompts, length)``, all of one length.
        max_new_tokens: ids to add at most, 0 to ``MAX_NEW_TOKENS``.
        width: beams kept per prompt, 1 to ``MAX_WIDTH``.
        length_penalty: GNMT's ``alpha >= 0`` (see the module docstring).
        eos_id: the end token; a hypothesis that chooses it is finished.
        all_beams: return the best ``width`` hypotheses of each prompt, best
            first, instead of the best one.
        alternatives: how many of the most probable ids each ``TokenChoice``
            lists.

    Returns:
        One ``Generated`` per prompt (``score`` is the penalised score), or a
        list of up to ``width`` of them per prompt with ``all_beams``.
    """
    prompts = check_prompts(prompts)
    max_new_tokens = check_max_new_tokens(max_new_tokens)
    width = check_width(width)
    alpha = check_length_penalty(length_penalty)
    eos_id = check_eos_id(eos_id)
    alternatives = check_alternatives(alternatives)
    if not isinstance(all_beams, bool):
        raise ValueError(f"all_beams must be true or false, got {all_beams!r}.")
    batch = prompts.shape[0]
    if max_new_tokens == 0:
        empty = [Generated((), (), 0.0, 0.0, False)]
        return [list(empty) if all_beams else empty[0] for _ in range(batch)]

    log_probs, state = call_next(next_fn, prompts, None)  # the prompt once, not once per beam
    vocabulary = log_probs.shape[1]
    check_ids_in_vocabulary(prompts, eos_id, vocabulary)
    first_rows = np.repeat(np.arange(batch), width)  # beams of prompt b: rows b * width ... + width - 1
    log_probs, state = log_probs[first_rows], take_rows(state, first_rows)
    sums = np.full((batch, width), -np.inf)
    sums[:, 0] = 0.0  # one real beam until the first step fans it out
    steps: list[_Step] = []
    kept: list[list[_Hypothesis]] = [[] for _ in range(batch)]
    done = np.zeros(batch, dtype=bool)
    offsets = np.arange(batch)[:, None] * width
    for step in range(max_new_tokens):
        candidates = (sums[:, :, None] + log_probs.reshape(batch, width, vocabulary)).reshape(batch, -1)
        if eos_id is not None:
            _keep_finished(kept, candidates, log_probs, done, step, width, vocabulary, eos_id, alpha, alternatives)
            candidates.reshape(batch, width, vocabulary)[:, :, eos_id] = -np.inf  # live beams go on without EOS
        best = top_ids(candidates, width)  # (batch, width) flat candidate ids
        parents, tokens = best // vocabulary, best % vocabulary
        sums = np.take_along_axis(candidates, best, axis=-1)
        rows = (offsets + parents).ravel()  # (batch * width,) rows of log_probs the beams extend
        steps.append(_Step(parents, choices_of(log_probs[rows], tokens.ravel(), alternatives)))
        done |= _cannot_improve(kept, sums, width, gnmt_length_penalty(max_new_tokens, alpha))
        if done.all() or step == max_new_tokens - 1:
            break
        log_probs, state = call_next(next_fn, tokens.reshape(-1, 1), take_rows(state, rows), vocabulary)

    results = []
    for b in range(batch):
        hypotheses = list(kept[b])
        if not done[b]:  # max_new_tokens ran out: the live beams compete too
            live = [w for w in range(width) if np.isfinite(sums[b, w])]
            hypotheses += [_live(steps, b, w, float(sums[b, w]), alpha) for w in live]
        hypotheses.sort(key=lambda h: -h.score)  # stable: the earlier found first among equals
        found = [_unrolled(steps, b, h) for h in hypotheses[:width]]
        results.append(found if all_beams else found[0])
    return results


def _live(steps: list[_Step], b: int, w: int, total: float, alpha: float) -> _Hypothesis:
    """Live beam ``w`` of prompt ``b`` after the last step, as a hypothesis."""
    width = steps[-1].parents.shape[1]
    length = len(steps)
    last = steps[-1].choices[b * width + w]
    parent = int(steps[-1].parents[b, w])
    return _Hypothesis(total / gnmt_length_penalty(length, alpha), total, length - 1, parent, last, False)


def _unrolled(steps: list[_Step], b: int, hypothesis: _Hypothesis) -> Generated:
    """The ids of a hypothesis, followed back through the beams' parents."""
    width = steps[0].parents.shape[1]
    choices = [hypothesis.last]
    beam = hypothesis.beam
    for step in reversed(steps[: hypothesis.step]):
        choices.append(step.choices[b * width + beam])
        beam = int(step.parents[b, beam])
    choices.reverse()
    tokens = tuple(choice.token for choice in choices)
    return Generated(tokens, tuple(choices), hypothesis.log_prob, hypothesis.score, hypothesis.finished)


def _keep_finished(kept, candidates, log_probs, done, step, width, vocabulary, eos_id, alpha, alternatives):
    """Add each prompt's EOS candidates that rank within its best ``width`` to its kept hypotheses."""
    ranked = top_ids(candidates, width)
    penalty = gnmt_length_penalty(step + 1, alpha)
    for b in np.flatnonzero(~done):
        for flat in ranked[b]:
            beam, token = divmod(int(flat), vocabulary)
            if token != eos_id or not np.isfinite(candidates[b, flat]):
                continue
            row = b * width + beam
            (last,) = choices_of(log_probs[row : row + 1], np.array([eos_id]), alternatives)
            total = float(candidates[b, flat])
            kept[b].append(_Hypothesis(total / penalty, total, step, beam, last, True))
        kept[b].sort(key=lambda h: -h.score)
        del kept[b][width:]


def _cannot_improve(kept, sums, width, best_penalty) -> np.ndarray:
    """Prompts whose live beams can no longer enter their best ``width``: sums only fall, penalties only grow."""
    stop = np.zeros(len(kept), dtype=bool)
    for b, hypotheses in enumerate(kept):
        live = sums[b][np.isfinite(sums[b])]
        if live.size == 0:
            stop[b] = True
        elif len(hypotheses) >= width:
            stop[b] = live.max() / best_penalty <= hypotheses[-1].score
    return stop
