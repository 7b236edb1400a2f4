"""Greedy decoding and sampling as one ``keras.ops.while_loop`` over a model's step: what the CLI and serving run.

The loop sees only a step that carries the model's state as tensors (as KerasHub's samplers see
``next(prompt, cache, index)``)::

    step(ids, state, t) -> (log_probs, state)

``ids`` ``(rows,)`` are the ids at position ``t``, ``log_probs`` ``(rows, vocabulary)`` the log-probabilities
of the id at ``t + 1``, ``state`` a dict of tensors whose shapes never change (a recurrent model's ``h``, a GPT's
key/value cache: ``seqlab.models.steps``). The prompts are laid out as KerasHub lays them, left-aligned and padded
after their ends: every row reads its own prompt one id a step, then its own choices, so a batch of prompts of
different lengths gives each row what it alone would give. Each generated id comes with the model's probability
of it and the ``alternatives`` most probable ids of its step, as tensors.

Sampling draws by the inverse CDF at given ``uniforms`` ``(rows, new_tokens)``: the same numbers give the same
ids, in a graph or eagerly, and ``rng.random`` of a seed gives the draws ``seqlab.decoding.sample`` makes.
"""

from __future__ import annotations

from collections.abc import Callable

import keras
import numpy as np
from keras import ops

from seqlab.decoding.sampling import pick_by, picker
from seqlab.decoding.step import Generated, TokenChoice

Step = Callable[..., tuple]
# pick(log_probs (rows, V), uniforms (rows,)) -> ids (rows,): seqlab.decoding.sampling.picker
Pick = Callable[..., object]


def probability_step(step: Step, never: int | None = None) -> Step:
    """The loop's step from a step that gives probabilities (a model's softmax head): their logarithm (clipped
    at 1e-12), ``never`` (an id that must not be generated, as padding) impossible, renormalised."""

    def log_step(ids, state, t):
        probabilities, state = step(ids, state, t)
        log_probs = ops.log(ops.clip(ops.cast(probabilities, "float32"), 1e-12, 1.0))
        if never is not None:
            log_probs = ops.where(ops.arange(ops.shape(log_probs)[-1]) == never, -np.inf, log_probs)
        return log_probs - ops.logsumexp(log_probs, axis=-1, keepdims=True), state

    return log_step


def decode(step: Step, state: dict, buffer, lengths, new_tokens, pick: Pick, uniforms=None,
           eos_id: int | None = None, alternatives: int = 5) -> dict:
    """Extend every row's prompt by ``new_tokens`` ids (module docstring), in place in ``buffer``.

    Args:
        step: the model's step (module docstring).
        state: the state before the first id.
        buffer: int ids ``(rows, width)``, each row's prompt first, room for ``new_tokens`` ids after the longest
            (``with_room``); its shape alone fixes the shapes inside, so an XLA-compiled loop compiles once per
            width, whatever the prompts' lengths and the number of new ids.
        lengths: ``(rows,)`` each prompt's length, 1 or more.
        new_tokens: how many ids to add (an int or a scalar tensor).
        pick: ``pick(log_probs, uniforms) -> ids``.
        uniforms: ``(rows, width)`` numbers in [0, 1) for a sampling ``pick``, the one at each position that
            draws its id; ``None``: zeros (greedy).
        eos_id: a row that chooses it is fed it again and the loop stops once every row has.
        alternatives: the most probable ids kept beside each id.

    Returns:
        By position ``(rows, width)``: ``"ids"``, ``"probs"`` (the model's probability of each id written) and
        ``(rows, width, alternatives)`` ``"alternative_ids"`` and ``"alternative_probs"``; ``continuation`` cuts
        out each row's new ids.
    """
    buffer, lengths = ops.cast(buffer, "int32"), ops.cast(lengths, "int32")
    new_tokens = ops.cast(new_tokens, "int32")
    rows, width = ops.shape(buffer)[0], ops.shape(buffer)[1]
    uniforms = ops.zeros((rows, width)) if uniforms is None else ops.cast(uniforms, "float32")
    probs, alt_ids = ops.zeros((rows, width)), ops.zeros((rows, width, alternatives), "int32")
    alt_probs, done = ops.zeros((rows, width, alternatives)), ops.zeros((rows,), "bool")
    # the step that writes the longest row's last id; none at all for no new id
    last = ops.where(new_tokens > 0, ops.max(lengths) + new_tokens - 1, 0)

    def cond(t, buffer, probs, alt_ids, alt_probs, done, state):
        return ops.logical_and(t < last, ops.logical_not(ops.all(done)))

    def body(t, buffer, probs, alt_ids, alt_probs, done, state):
        log_probs, state = step(ops.take(buffer, t, axis=1), state, t)
        position = t + 1
        writing = position >= lengths  # past its prompt: the row's own choice
        chosen = ops.cast(pick(log_probs, ops.take(uniforms, position, axis=1)), "int32")
        if eos_id is not None:
            chosen = ops.where(done, eos_id, chosen)
            done = ops.logical_or(done, ops.logical_and(writing, chosen == eos_id))
        token = ops.where(writing, chosen, ops.take(buffer, position, axis=1))
        buffer = ops.slice_update(buffer, [0, position], token[:, None])
        probs = ops.slice_update(probs, [0, position], ops.exp(ops.take_along_axis(log_probs, chosen[:, None], 1)))
        if alternatives:
            top_probs, top_ids = ops.top_k(log_probs, alternatives)  # ties: the lower id first
            alt_ids = ops.slice_update(alt_ids, [0, position, 0], ops.cast(top_ids, "int32")[:, None])
            alt_probs = ops.slice_update(alt_probs, [0, position, 0], ops.exp(top_probs)[:, None])
        return t + 1, buffer, probs, alt_ids, alt_probs, done, state

    _, buffer, probs, alt_ids, alt_probs, _, _ = ops.while_loop(
        cond, body, (ops.convert_to_tensor(0, "int32"), buffer, probs, alt_ids, alt_probs, done, state)
    )
    return {"ids": buffer, "probs": probs, "alternative_ids": alt_ids, "alternative_probs": alt_probs}


def with_room(prompts, new_tokens):
    """``prompts`` ``(rows, width)`` followed by room for ``new_tokens`` ids: ``decode``'s buffer."""
    prompts = ops.cast(prompts, "int32")
    return ops.concatenate([prompts, ops.zeros((ops.shape(prompts)[0], new_tokens), "int32")], axis=1)


def continuation(decoded: dict, lengths, new_tokens) -> dict:
    """``decode``'s arrays cut to each row's new ids: ``(rows, new_tokens)`` (and ``(.., alternatives)``)."""
    written = ops.cast(lengths, "int32")[:, None] + ops.arange(new_tokens, dtype="int32")[None, :]
    return {name: ops.take_along_axis(values, written if len(values.shape) == 2 else written[:, :, None], axis=1)
            for name, values in decoded.items()}


def steps_decoder(steps, start: Callable, never: int | None = None, sampling: bool = False,
                  eos_id: int | None = None, alternatives: int = 5) -> Callable:
    """``run(source, buffer, lengths, new_tokens, uniforms=None) -> decode's dict`` over a model's
    ``seqlab.models.steps`` (``steps.step``, probabilities out), starting from ``start(source)``: the one decoder
    the CLI compiles and the SavedModel's endpoints trace. Greedy; with ``sampling``,
    ``run(.., uniforms, temperature, top_k, top_p)`` draws under settings given as scalar tensors (``pick_by``,
    temperature above 0): one graph for every setting, so a page's temperature slider never waits for a new
    trace."""
    step = probability_step(steps.step, never)

    def run(source, buffer, lengths, new_tokens, uniforms=None):
        return decode(step, start(source), buffer, lengths, new_tokens, picker(), uniforms, eos_id, alternatives)

    def run_sampling(source, buffer, lengths, new_tokens, uniforms, temperature, top_k, top_p):
        def pick(log_probs, draws):
            return pick_by(log_probs, draws, temperature, top_k, top_p)

        return decode(step, start(source), buffer, lengths, new_tokens, pick, uniforms, eos_id, alternatives)

    return run_sampling if sampling else run


def compiled(function: Callable, signature: list[tuple] | None = None, xla: bool = False) -> Callable:
    """``function`` as one graph (TensorFlow: ``tf.function``); ``signature``, ``(shape, dtype)`` per argument
    with ``None`` for any size, makes it one trace for any sizes; ``xla``: compiled by XLA (once per shape of
    its arguments: a step of many small ops then costs one fused call). Another backend runs it as it is."""
    if keras.backend.backend() != "tensorflow":
        return function
    import tensorflow as tf

    specs = None if signature is None else [tf.TensorSpec(shape, dtype) for shape, dtype in signature]
    return tf.function(function, input_signature=specs, reduce_retracing=True, jit_compile=xla or None)


def as_generated(decoded: dict, eos_id: int | None = None) -> list[Generated]:
    """``decode``'s tensors as one ``Generated`` per row, cut after the first ``eos_id``."""
    ids, probs, alt_ids, alt_probs = (np.asarray(ops.convert_to_numpy(decoded[name])) for name in
                                      ("ids", "probs", "alternative_ids", "alternative_probs"))
    found = []
    for row in range(len(ids)):
        n = ids.shape[1]
        if eos_id is not None and (ids[row] == eos_id).any():
            n = int(np.argmax(ids[row] == eos_id)) + 1
        choices = tuple(
            TokenChoice(int(ids[row, i]), float(probs[row, i]),
                        tuple(zip(alt_ids[row, i].tolist(), alt_probs[row, i].astype("float64").tolist())))
            for i in range(n)
        )
        log_prob = float(np.sum(np.log(probs[row, :n].astype("float64"))))
        found.append(Generated(tuple(int(i) for i in ids[row, :n]), choices, log_prob, log_prob,
                               eos_id is not None and n > 0 and int(ids[row, n - 1]) == eos_id))
    return found
