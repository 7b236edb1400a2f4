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
from keras import ops

from seqlab.decoding.arguments import check_temperature, check_top_k, check_top_p, rng_of
from seqlab.decoding.loop import autoregress
from seqlab.decoding.step import Generated, NextFn

# The filters and the draw are written once in ``keras.ops``: the NumPy loop (``seqlab.decoding.loop``) runs them
# eagerly on float64 arrays, the compiled loop (``seqlab.decoding.while_loop``) inside its graph.


def most_probable(log_probs):
    """The argmax of each row, ties to the lower id (as ``top_ids``)."""
    return ops.argmax(log_probs, axis=-1)


def _log_softmax(log_probs):
    return log_probs - ops.logsumexp(log_probs, axis=-1, keepdims=True)


def with_temperature(log_probs, temperature: float):
    """``log p_T``: the distribution sharpened (``T < 1``) or flattened (``T > 1``); ``T > 0``."""
    return _log_softmax(log_probs / temperature)


def _ranks(log_probs):
    """Each id's place in its row, most probable first (0), ties to the lower id."""
    order = ops.top_k(log_probs, ops.shape(log_probs)[-1], sorted=True)[1]
    return ops.argsort(order, axis=-1)


def _kept(log_probs, keep):
    return _log_softmax(ops.where(keep, log_probs, ops.cast(-np.inf, log_probs.dtype)))


def keep_top_k(log_probs, k: int):
    """``log p_K``: the ``k`` most probable ids of each row, renormalised; the rest ``-inf``."""
    if k >= log_probs.shape[-1]:
        return log_probs
    return _kept(log_probs, _ranks(log_probs) < k)


def keep_top_p(log_probs, p: float):
    """``log p_N``: the fewest most probable ids holding mass ``>= p``, renormalised; the rest ``-inf``."""
    if p >= 1.0:
        return log_probs
    return _within_mass(log_probs, p)


def _within_mass(log_probs, p):
    ranked = ops.top_k(log_probs, ops.shape(log_probs)[-1], sorted=True)[0]  # most probable first
    ranked_probs = ops.exp(ranked)
    mass_before = ops.cumsum(ranked_probs, axis=-1) - ranked_probs  # 0 for the first: it always stays
    count = ops.sum(ops.cast(mass_before < p, "int32"), axis=-1, keepdims=True)
    return _kept(log_probs, _ranks(log_probs) < count)


def filtered(log_probs, temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None):
    """The log-probabilities ``sample`` draws from: temperature, then top-k, then top-p.

    ``temperature=0`` gives all the mass to the most probable id (greedy).
    """
    temperature, top_k, top_p = check_temperature(temperature), check_top_k(top_k), check_top_p(top_p)
    log_probs = ops.convert_to_tensor(log_probs)
    if temperature == 0:
        chosen = ops.one_hot(most_probable(log_probs), ops.shape(log_probs)[-1], dtype=log_probs.dtype)
        return ops.where(chosen > 0, ops.cast(0.0, log_probs.dtype), ops.cast(-np.inf, log_probs.dtype))
    log_probs = with_temperature(log_probs, temperature)
    if top_k is not None:
        log_probs = keep_top_k(log_probs, top_k)
    if top_p is not None:
        log_probs = keep_top_p(log_probs, top_p)
    return log_probs


def draw(log_probs, uniforms):
    """One id per row drawn from ``exp(log_probs)`` by the inverse CDF at ``uniforms`` ``(rows,)`` in [0, 1)
    (never an id of probability 0)."""
    probs = ops.exp(log_probs)
    cdf = ops.cumsum(probs, axis=-1)
    u = ops.cast(uniforms, cdf.dtype)[:, None] * cdf[:, -1:]  # uniform on [0, total)
    ids = ops.sum(ops.cast(cdf <= u, "int32"), axis=-1)
    last_possible = ops.shape(probs)[-1] - 1 - ops.argmax(ops.flip(probs, axis=-1) > 0, axis=-1)
    return ops.minimum(ids, ops.cast(last_possible, "int32"))  # u rounded up to the total would run past the end


def pick_by(log_probs, uniforms, temperature, top_k, top_p):
    """A draw under the settings given as scalar tensors, a compiled decoder's inputs, so that one graph samples
    at every setting: ``temperature > 0`` (greedy has its own graph, ``picker()``), ``top_k`` 0 every id, ``top_p``
    1 all the mass. Each filter that applies runs the ops ``filtered`` runs, in its order: the same ids for the
    same draws."""
    log_probs = ops.convert_to_tensor(log_probs)
    top_k, top_p = ops.cast(top_k, "int32"), ops.cast(top_p, log_probs.dtype)
    tempered = with_temperature(log_probs, ops.cast(temperature, log_probs.dtype))
    cut = ops.logical_and(top_k > 0, top_k < ops.shape(log_probs)[-1])
    tempered = ops.where(cut, _kept(tempered, _ranks(tempered) < top_k), tempered)
    tempered = ops.where(top_p < 1, _within_mass(tempered, top_p), tempered)
    return draw(tempered, uniforms)


def picker(temperature: float = 0.0, top_k: int | None = None, top_p: float | None = None):
    """``pick(log_probs, uniforms) -> ids``: greedy (``temperature=0``) or a draw from the filtered distribution."""
    temperature, top_k, top_p = check_temperature(temperature), check_top_k(top_k), check_top_p(top_p)
    if temperature == 0:
        return lambda log_probs, uniforms: ops.cast(most_probable(log_probs), "int32")
    return lambda log_probs, uniforms: draw(filtered(log_probs, temperature, top_k, top_p), uniforms)


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
    pick, rng = picker(temperature, top_k, top_p), rng_of(seed)

    def pick_numpy(log_probs):
        return np.asarray(ops.convert_to_numpy(pick(log_probs, rng.random(len(log_probs)))))

    return autoregress(next_fn, prompts, max_new_tokens, pick_numpy, eos_id, alternatives)
