r"""Beam search: the ``width`` most probable partial sequences per prompt, extended together, as one
``keras.ops.while_loop``.

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
finished ones). A prompt stops early once ``width`` are kept and no live beam
can still beat the worst of them:

    $$ \max_{\text{live}} \frac{s}{\mathrm{lp}(T)} \le \min_{\text{kept}} \text{score} $$

($s$ only falls and, for $\alpha \ge 0$, $\mathrm{lp}$ only grows up to its value at the
last step $T$); at ``max_new_tokens`` the live beams compete with the finished ones.
Scores within a step share one length, so ranking candidates by $s$ ranks them by
score. Ties rank the lower candidate first (``ops.top_k``), a kept hypothesis before a
newer one. Width 1 (with $\alpha = 0$) is greedy decoding.

``beam_decode`` is the loop, over a model's step as ``seqlab.decoding.while_loop`` sees it::

    step(ids, state, t) -> (log_probs, state)

with the state a dict of tensors whose rows (axis 0) it repeats per beam and reorders with
``ops.take`` as the beams are chosen; the shapes never change, so the translation CLI and the
SavedModel compile it into one graph. ``beam_search`` runs the same loop eagerly over a NumPy
``next(tokens, state)`` (``seqlab.decoding``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import keras
import numpy as np
from keras import ops

from seqlab.decoding.arguments import (
    check_alternatives,
    check_eos_id,
    check_ids_in_vocabulary,
    check_length_penalty,
    check_max_new_tokens,
    check_prompts,
    check_width,
)
from seqlab.decoding.step import Generated, NextFn, TokenChoice, call_next

# The arrays that describe hypotheses, (prompts, width, new tokens) and (.., alternatives).
SEQUENCES = ("ids", "probs", "alternative_ids", "alternative_probs")


def gnmt_length_penalty(length, alpha):
    """``((5 + length) / 6) ** alpha``: the divisor of a hypothesis's summed log-probability (numbers or
    float tensors of one dtype)."""
    return ((5 + length) / 6) ** alpha


def beam_decode(step: Callable, log_probs, state: dict, t, max_new_tokens, width: int, length_penalty=0.0,
                eos_id: int | None = None, alternatives: int = 5) -> dict:
    """Beam search (module docstring) from each prompt's first distribution.

    Args:
        step: the model's step, ``step(ids, state, t) -> (log_probs, state)``, ids ``(rows,)``.
        log_probs: ``(prompts, vocabulary)``, the distribution of each prompt's first new id (the prompt read
            once, not once per beam); its dtype is the loop's.
        state: the state after the prompts, a dict of tensors with one row per prompt.
        t: the position of the first new id (what ``step`` is told when it reads it).
        max_new_tokens: ids to add at most, 1 or more (an int or a scalar tensor).
        width: beams per prompt (a Python int: it fixes shapes).
        length_penalty: GNMT's ``alpha >= 0`` (a number or a scalar tensor).
        eos_id: the end token; a hypothesis that chooses it is finished.
        alternatives: how many of the most probable ids are kept beside each id, at most the vocabulary.

    Returns:
        The best ``width`` hypotheses of each prompt, best first: ``"ids"``, ``"probs"`` (the model's
        probability of each id) ``(prompts, width, max_new_tokens)``, ``"alternative_ids"`` and
        ``"alternative_probs"`` ``(.., alternatives)``, and per hypothesis ``"scores"`` (``-inf``: no
        hypothesis in that slot), ``"log_probs"``, ``"lengths"`` and ``"finished"`` ``(prompts, width)``;
        ``as_generated_beams`` turns them into ``Generated``.
    """
    log_probs = ops.convert_to_tensor(log_probs)
    dtype, vocabulary = keras.backend.standardize_dtype(log_probs.dtype), log_probs.shape[-1]
    prompts, new_tokens = ops.shape(log_probs)[0], ops.cast(max_new_tokens, "int32")
    alpha, t = ops.convert_to_tensor(length_penalty, dtype), ops.cast(t, "int32")  # a float as is, not via float32
    never = ops.full((prompts, width), -np.inf, dtype)

    def penalty(length):
        return gnmt_length_penalty(ops.cast(length, dtype), alpha)

    def empty(shape, kind):
        return ops.zeros((prompts, width, new_tokens, *shape), kind)

    hypotheses = {"ids": empty((), "int32"), "probs": empty((), dtype),
                  "alternative_ids": empty((alternatives,), "int32"),
                  "alternative_probs": empty((alternatives,), dtype)}
    carry = {
        "steps": ops.convert_to_tensor(0, "int32"),  # ids chosen so far
        "sums": ops.where(ops.arange(width) == 0, ops.zeros((prompts, width), dtype), never),  # one beam at first
        "live": hypotheses,
        "kept": {**hypotheses, "scores": never, "log_probs": never, "lengths": ops.zeros((prompts, width), "int32")},
        "done": ops.zeros((prompts,), "bool"),
        "rows": ops.zeros((prompts * width,), "int32"),  # the rows of the state the live beams extend
        "last": ops.zeros((prompts * width,), "int32"),  # their last ids
        "state": keras.tree.map_structure(lambda x: ops.repeat(x, width, axis=0), state),
    }

    def choose(carry, log_probs):
        """One step: the candidates of every beam ranked, EOS ones kept, the best others live on."""
        steps, sums = carry["steps"], carry["sums"]
        by_beam = ops.reshape(log_probs, (prompts, width, vocabulary))
        candidates = ops.reshape(sums[:, :, None] + by_beam, (prompts, width * vocabulary))
        alternative = {}  # each beam's most probable ids, as every hypothesis that extends it lists them
        if alternatives:
            values, indices = ops.top_k(log_probs, alternatives)
            alternative = {name: ops.reshape(x, (prompts, width, alternatives)) for name, x in
                           (("alternative_ids", ops.cast(indices, "int32")), ("alternative_probs", ops.exp(values)))}

        def extended(parents, ids):
            """The live hypotheses ``parents`` (prompts, width) followed by ``ids`` at position ``steps``."""
            grown = {name: _beams(values, parents) for name, values in carry["live"].items()}
            chosen = ops.take_along_axis(_beams(by_beam, parents), ids[:, :, None], axis=2)
            grown["ids"] = ops.slice_update(grown["ids"], [0, 0, steps], ids[:, :, None])
            grown["probs"] = ops.slice_update(grown["probs"], [0, 0, steps], ops.exp(chosen))
            for name, values in alternative.items():
                grown[name] = ops.slice_update(grown[name], [0, 0, steps, 0], _beams(values, parents)[:, :, None])
            return grown

        kept = carry["kept"]
        if eos_id is not None:
            totals, best = ops.top_k(candidates, width)  # ties: the lower candidate first
            ending = (best % vocabulary == eos_id) & ops.isfinite(totals) & ~carry["done"][:, None]
            ended = {**extended(best // vocabulary, best % vocabulary), "log_probs": totals,
                     "scores": ops.where(ending, totals / penalty(steps + 1), never),
                     "lengths": ops.full((prompts, width), steps + 1, "int32")}
            kept, _ = _best(kept, ended, width)
            candidates = ops.where(ops.arange(width * vocabulary) % vocabulary == eos_id, -np.inf, candidates)
        sums, best = ops.top_k(candidates, width)
        parents, ids = best // vocabulary, best % vocabulary
        worst_kept = kept["scores"][:, -1]  # -inf until width are kept
        # no live beam can beat it any more, even at the last step's penalty
        hopeless = ops.isfinite(worst_kept) & (ops.max(sums, axis=1) / penalty(new_tokens) <= worst_kept)
        offsets = ops.arange(prompts, dtype="int32")[:, None] * width
        return {**carry, "steps": steps + 1, "sums": sums, "live": extended(parents, ids), "kept": kept,
                "done": carry["done"] | ~ops.any(ops.isfinite(sums), axis=1) | hopeless,
                "rows": ops.reshape(offsets + ops.cast(parents, "int32"), (-1,)),
                "last": ops.reshape(ops.cast(ids, "int32"), (-1,))}

    def unfinished(carry):
        return (carry["steps"] < new_tokens) & ~ops.all(carry["done"])

    first = ops.repeat(log_probs, width, axis=0)

    def following(carry):
        """The step after the ids chosen last, from the rows of the state they extend."""
        state = keras.tree.map_structure(lambda x: ops.take(x, carry["rows"], axis=0), carry["state"])
        log_probs, state = step(carry["last"], state, t + carry["steps"] - 1)  # the last ids' position
        return ops.cast(log_probs, dtype), state

    def extend(carry):
        # step 0 chooses from the prompts' own distribution inside the loop: choose is traced once, not twice
        log_probs, state = ops.cond(carry["steps"] == 0, lambda: (first, carry["state"]), lambda: following(carry))
        return choose({**carry, "state": state}, log_probs)

    carry = ops.while_loop(unfinished, extend, carry)
    steps, sums = carry["steps"], carry["sums"]
    # max_new_tokens ran out (not done): the live beams compete with the kept ones
    competing = ops.isfinite(sums) & ~carry["done"][:, None]
    live = {**carry["live"], "log_probs": sums, "scores": ops.where(competing, sums / penalty(steps), never),
            "lengths": ops.full((prompts, width), steps, "int32")}
    found, order = _best(carry["kept"], live, width)
    return {**found, "finished": order < width}


def _beams(values, index):
    """``values`` ``(prompts, beams, ...)`` at beams ``index`` ``(prompts, k)``: ``(prompts, k, ...)``."""
    index = ops.cast(index, "int32")
    for _ in range(len(values.shape) - 2):
        index = index[..., None]
    return ops.take_along_axis(values, index, axis=1)


def _best(first: dict, second: dict, width: int) -> tuple[dict, object]:
    """The ``width`` best-scored hypotheses of two sets (each ``(prompts, width, ..)``, the same names), best
    first, ties to ``first`` (the kept ones: the earlier found), and where each came from (below ``width``:
    ``first``)."""
    both = {name: ops.concatenate([first[name], second[name]], axis=1) for name in first}
    _, order = ops.top_k(both["scores"], width)
    return {name: _beams(values, order) for name, values in both.items()}, order


def as_generated_beams(decoded: dict, all_beams: bool = False) -> list[Generated] | list[list[Generated]]:
    """``beam_decode``'s tensors as the best ``Generated`` of each prompt, or with ``all_beams`` the list of its
    hypotheses (up to ``width``), best first."""
    arrays = {name: np.asarray(ops.convert_to_numpy(values)) for name, values in decoded.items()}
    found = []
    for row in range(len(arrays["scores"])):
        beams = []
        for beam in np.flatnonzero(np.isfinite(arrays["scores"][row])):
            ids, probs, alt_ids, alt_probs = (arrays[name][row, beam, : arrays["lengths"][row, beam]]
                                              for name in SEQUENCES)
            choices = tuple(TokenChoice(int(i), float(p), tuple(zip(a.tolist(), q.astype("float64").tolist())))
                            for i, p, a, q in zip(ids, probs, alt_ids, alt_probs))
            beams.append(Generated(tuple(ids.tolist()), choices, float(arrays["log_probs"][row, beam]),
                                   float(arrays["scores"][row, beam]), bool(arrays["finished"][row, beam])))
        found.append(beams if all_beams else beams[0])
    return found


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
    """Decode every prompt by beam search: ``beam_decode`` run eagerly over a NumPy ``next``.

    Args:
        next_fn: the model's step, ``next(tokens, state) -> (log_probs, state)``
            (see ``seqlab.decoding``); it is called with ``prompts * width``
            rows after the first call, and its state's rows are reordered as
            beams are chosen (its arrays come back as NumPy arrays).
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
    if max_new_tokens == 0:
        empty = [Generated((), (), 0.0, 0.0, False)]
        return [list(empty) if all_beams else empty[0] for _ in range(len(prompts))]

    log_probs, state = call_next(next_fn, prompts, None)  # the prompt once, not once per beam
    vocabulary = log_probs.shape[1]
    check_ids_in_vocabulary(prompts, eos_id, vocabulary)
    nesting = [state]  # the latest state's structure: the loop carries only its arrays, as a dict

    def numpy_step(ids, arrays, t):
        log_probs, state = call_next(next_fn, np.asarray(ops.convert_to_numpy(ids), "int64")[:, None],
                                     _nested(nesting[0], arrays), vocabulary)
        nesting[0] = state
        return log_probs, _arrays(state)

    with _in_python():
        decoded = beam_decode(numpy_step, log_probs, _arrays(state), prompts.shape[1], max_new_tokens, width,
                              alpha, eos_id, min(alternatives, vocabulary))
    return as_generated_beams(decoded, all_beams)


def _arrays(state) -> dict:
    """The arrays of a ``next``'s state (``None``, an array, or a tuple, list or dict of those), by position."""
    return {str(i): leaf for i, leaf in enumerate(keras.tree.flatten(state)) if leaf is not None}


def _nested(structure, arrays: dict):
    """``arrays`` back in the nesting of ``structure``, as NumPy."""
    leaves = keras.tree.flatten(structure)
    return keras.tree.pack_sequence_as(structure, [None if leaf is None else np.asarray(ops.convert_to_numpy(
        arrays[str(i)])) for i, leaf in enumerate(leaves)])


def _in_python():
    """Where ``ops.while_loop`` runs its body as Python, one call of ``next`` per step: eager TensorFlow, torch
    and NumPy do; JAX traces it unless jit is off."""
    if keras.backend.backend() == "jax":
        import jax

        return jax.disable_jit()
    return contextlib.nullcontext()
