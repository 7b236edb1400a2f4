r"""Sampling: temperature, then top-k, then top-p (nucleus), then one random draw.

Equations:
    $$ p_T(k) = \frac{\exp(\log p(k) / T)}{\sum_j \exp(\log p(j) / T)} $$

    $$ K = \text{the } k \text{ most probable ids under } p_T, \qquad
       p_K(k) \propto p_T(k) \, [k \in K] $$

    $$ N = \text{the fewest most probable ids with } \textstyle\sum_{j \in N} p_K(j) \ge p, \qquad
       p_N(k) \propto p_K(k) \, [k \in N] $$

    Each filter renormalises what it keeps, so top-p counts mass within the top
    k (as Hugging Face's chained warpers; KerasHub's ``TopPSampler(k=...)``
    counts it against the untruncated distribution instead). $T \to 0$ is the
    argmax: ``temperature=0`` means greedy. Ties rank the lower id first.
"""

from __future__ import annotations

import numpy as np

from seqlab.decoding.arguments import check_temperature, check_top_k, check_top_p, rng_of
from seqlab.decoding.greedy import most_probable
from seqlab.decoding.loop import autoregress
from seqlab.decoding.ranking import top_ids
from seqlab.decoding.step import Generated, NextFn, log_softmax


def with_temperature(log_probs: np.ndarray, temperature: float) -> np.ndarray:
    """``log p_T``: the distribution sharpened (``T < 1``) or flattened (``T > 1``); ``T > 0``."""
    return log_softmax(log_probs / temperature)


def keep_top_k(log_probs: np.ndarray, k: int) -> np.ndarray:
    """``log p_K``: the ``k`` most probable ids of each row, renormalised; the rest ``-inf``."""
    if k >= log_probs.shape[1]:
        return log_probs
    kept = np.full_like(log_probs, -np.inf)
    ids = top_ids(log_probs, k)
    np.put_along_axis(kept, ids, np.take_along_axis(log_probs, ids, axis=-1), axis=-1)
    return log_softmax(kept)


def keep_top_p(log_probs: np.ndarray, p: float) -> np.ndarray:
    """``log p_N``: the fewest most probable ids holding mass ``>= p``, renormalised; the rest ``-inf``."""
    if p >= 1.0:
        return log_probs
    ranked = top_ids(log_probs, log_probs.shape[1])  # (rows, vocabulary), most probable first
    ranked_probs = np.exp(np.take_along_axis(log_probs, ranked, axis=-1))
    mass_before = np.cumsum(ranked_probs, axis=-1) - ranked_probs  # 0 for the first: it always stays
    kept = np.full_like(log_probs, -np.inf)
    np.put_along_axis(
        kept, ranked, np.where(mass_before < p, np.take_along_axis(log_probs, ranked, axis=-1), -np.inf), axis=-1
    )
    return log_softmax(kept)


def filtered(log_probs: np.ndarray, temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None):
    """The log-probabilities ``sample`` draws from: temperature, then top-k, then top-p.

    ``temperature=0`` gives all the mass to the most probable id (greedy).
    """
    temperature, top_k, top_p = check_temperature(temperature), check_top_k(top_k), check_top_p(top_p)
    log_probs = np.asarray(log_probs, dtype=np.float64)
    if temperature == 0:
        ids = most_probable(log_probs)
        greedy_only = np.full_like(log_probs, -np.inf)
        greedy_only[np.arange(len(ids)), ids] = 0.0
        return greedy_only
    log_probs = with_temperature(log_probs, temperature)
    if top_k is not None:
        log_probs = keep_top_k(log_probs, top_k)
    if top_p is not None:
        log_probs = keep_top_p(log_probs, top_p)
    return log_probs


def draw(log_probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One id per row drawn from ``exp(log_probs)`` by the inverse CDF (never an id of probability 0)."""
    probs = np.exp(log_probs)
    cdf = np.cumsum(probs, axis=-1)
    u = rng.random(len(probs)) * cdf[:, -1]  # (rows,) uniform on [0, total)
    ids = np.sum(cdf <= u[:, None], axis=-1)
    last_possible = probs.shape[1] - 1 - np.argmax(probs[:, ::-1] > 0, axis=-1)
    return np.minimum(ids, last_possible)  # u rounded up to the total would run past the end


def sample(
    next_fn: NextFn,
    prompts,
    max_new_tokens: int,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    seed: int | np.random.Generator | None = None,
    eos_id: int | None = None,
    alternatives: int = 5,
) -> list[Generated]:
    """Decode every prompt by drawing each id from the model's filtered distribution.

    Args:
        next_fn, prompts, max_new_tokens: as ``greedy``.
        temperature: ``T >= 0``; below 1 sharper, above 1 flatter, 0 greedy.
        top_k: keep the ``k`` most probable ids (``None``: all).
        top_p: keep the fewest most probable ids whose mass reaches ``p`` in
            ``(0, 1]`` (``None`` or 1: all).
        seed: an int or a ``np.random.Generator`` for reproducible draws
            (``None``: different every call).
        eos_id, alternatives: as ``greedy`` (alternatives ranked under the
            model, before temperature and filters).

    Returns:
        One ``Generated`` per prompt; each ``TokenChoice.prob`` is the model's
        own probability of the id, whatever the filters did.
    """
    temperature, top_k, top_p = check_temperature(temperature), check_top_k(top_k), check_top_p(top_p)
    rng = rng_of(seed)

    def pick(log_probs):
        return draw(filtered(log_probs, temperature, top_k, top_p), rng)

    return autoregress(next_fn, prompts, max_new_tokens, pick, eos_id, alternatives)
