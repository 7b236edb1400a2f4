"""Translate with a trained encoder-decoder: the encoder once, then the decoder one token at a time.

A model (``seqlab.models.seq2seq`` or ``seqlab.models.transformer_seq2seq``: a nested ``encoder`` model and a
``decoder`` layer) is stepped by its ``seqlab.models.decoder_steps``: ``greedy_decoder`` and ``beam_decoder`` run
the shared compiled loops (``seqlab.decoding.while_loop``, ``seqlab.decoding.beam``) over ``steps.step`` from
``steps.start(source)``; beam search reorders the state's rows, which hold each hypothesis's decoder states (a
recurrent decoder's states and input feed, or a Transformer's key/value caches) and the encoder's values.
``replay`` runs a finished output back through the decoder, teacher-forced, to read the attention weights (and
local attention's positions p_t) behind every token.
``translate`` does all of it for raw strings with the run's two tokenisers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from keras import ops

from seqlab.decoding.arguments import check_length_penalty, check_max_new_tokens
from seqlab.decoding.beam import as_generated_beams, beam_decode
from seqlab.decoding.while_loop import (as_generated, compiled, continuation, probability_step, steps_decoder,
                                        with_room)
from seqlab.models.registry import steps_of
from seqlab.text import PAD_ID, Tokenizer
from seqlab.text.tokenizer import EOS, START

MAX_WIDTH = 16
# The most probable ids kept beside each greedy one.
ALTERNATIVES = 5


@dataclass(frozen=True)
class Translation:
    """One source text's translation (one hypothesis of a beam).

    Attributes:
        source: the source tokens as the model read them (trimmed to its window).
        tokens: the target tokens written, without ``[EOS]``.
        text: the target text (``tokens`` joined by the target tokeniser).
        log_prob: the sum of the log-probabilities of the tokens written, ``[EOS]`` included.
        score: the beam's score (``log_prob`` divided by the length penalty; ``log_prob`` for greedy).
        finished: the decoder wrote ``[EOS]`` (else it stopped at the maximum length).
        probabilities: ``(T,)``, the model's probability of each token written, ``[EOS]`` included.
        attention: ``(T, S)``, the attention weights of every step over the source; ``None`` without attention.
        positions: ``(T,)``, local attention's p_t; ``None`` otherwise.
    """

    source: list[str]
    tokens: list[str]
    text: str
    log_prob: float
    score: float
    finished: bool
    probabilities: np.ndarray
    attention: np.ndarray | None
    positions: np.ndarray | None


def greedy_decoder(steps, start_id: int, eos_id: int, vocabulary: int):
    """``run(source, max_tokens) -> decode's dict``: greedy decoding from ``[START]`` to ``[EOS]`` through the
    compiled loop (``seqlab.decoding.while_loop``): what the CLI compiles and the SavedModel's ``translate``
    traces."""
    decode = steps_decoder(steps, steps.start, eos_id=eos_id, alternatives=min(ALTERNATIVES, vocabulary))

    def run(source, max_tokens):
        rows = ops.shape(source)[0]
        starts, lengths = ops.full((rows, 1), start_id, "int32"), ops.ones((rows,), "int32")
        return continuation(decode(source, with_room(starts, max_tokens), lengths, max_tokens), lengths, max_tokens)

    return run


def beam_decoder(steps, start_id: int, eos_id: int, vocabulary: int, width: int):
    """Beam search from ``[START]`` (read once per source row) through the beam loop (``seqlab.decoding.beam``):
    what the CLI compiles and the SavedModel's ``translate_beam`` traces.

    Args:
        steps: the model's ``seqlab.models.decoder_steps``.
        start_id, eos_id: the target's ``[START]`` and ``[EOS]`` ids.
        vocabulary: the target's size (the alternatives kept beside each id are at most that many).
        width: beams per source row.

    Returns:
        ``run(source, max_tokens, length_penalty) -> beam_decode's dict`` (the ``width`` best hypotheses of each
        row, best first), traceable: ``max_tokens`` and ``length_penalty`` may be scalar tensors.
    """
    step = probability_step(steps.step)

    def run(source, max_tokens, length_penalty):
        starts = ops.full((ops.shape(source)[0],), start_id, "int32")
        log_probs, state = step(starts, steps.start(source), 0)
        return beam_decode(step, log_probs, state, 1, max_tokens, width, length_penalty, eos_id,
                           min(ALTERNATIVES, vocabulary))

    return run


def decode_ids(model, sources: np.ndarray, start_id: int, eos_id: int, max_tokens: int, width: int = 1,
               length_penalty: float = 0.0, all_beams: bool = False):
    """Greedy (``width`` 1) or beam search from every source row, through loops compiled once per model, start and
    end ids, vocabulary and width.

    Args:
        model: a translate model.
        sources: source rows ``(N, S)`` (or ``(N, S, F)`` numbers).
        start_id, eos_id: the target's ``[START]`` and ``[EOS]`` ids.
        max_tokens: ids to write at most, ``[EOS]`` included (1 or more for a beam).
        width: beams per row; 1 (without ``all_beams``) is greedy.
        length_penalty: GNMT's ``alpha >= 0`` for the beam.
        all_beams: every hypothesis of the beam, best first, instead of the best.

    Returns:
        One ``Generated`` per row, or a list of up to ``width`` per row with ``all_beams``.
    """
    steps, vocabulary, source = steps_of(model), int(model.outputs[0].shape[-1]), model.inputs[0]
    beam = width > 1 or all_beams
    made = vars(steps).setdefault("_decoders", {})  # compiled once per steps (so once per model)
    key = (start_id, eos_id, vocabulary, width if beam else None)
    if key not in made:
        signature = [((None, *source.shape[1:]), source.dtype), ((), "int32")]
        made[key] = (compiled(beam_decoder(steps, start_id, eos_id, vocabulary, width), [*signature, ((), "float32")])
                     if beam else compiled(greedy_decoder(steps, start_id, eos_id, vocabulary), signature))
    arguments = [ops.convert_to_tensor(sources, source.dtype),
                 ops.convert_to_tensor(check_max_new_tokens(max_tokens), "int32")]
    if beam:
        alpha = ops.convert_to_tensor(check_length_penalty(length_penalty), "float32")
        return as_generated_beams(made[key](*arguments, alpha), all_beams)
    return as_generated(made[key](*arguments), eos_id)


def as_targets(generated, length: int) -> np.ndarray:
    """Decoded ids laid out as a split's ``y``: the tokens, ``[EOS]`` when written, then padding ``(N, L)``."""
    out = np.zeros((len(generated), length), dtype="int32")
    for row, g in enumerate(generated):
        ids = g.tokens[:length]
        out[row, : len(ids)] = ids
    return out


def greedy_targets(model, sources: np.ndarray, start_id: int, eos_id: int, length: int,
                   batch: int = 512) -> np.ndarray:
    """Greedy translations of every source row as target ids ``(N, L)`` (the task's test predictions)."""
    parts = [as_targets(decode_ids(model, sources[i : i + batch], start_id, eos_id, length), length)
             for i in range(0, len(sources), batch)]
    return np.concatenate(parts) if parts else np.zeros((0, length), dtype="int32")


def free_running_loss(model, sources: np.ndarray, targets: np.ndarray, start_id: int, batch: int = 512) -> float:
    """The cross-entropy of the reference tokens when the decoder is fed its own previous choices (nats per
    token, over the reference's tokens and ``[EOS]``): what teacher forcing hides (exposure bias)."""
    steps, total, count = steps_of(model), 0.0, 0
    for first in range(0, len(sources), batch):
        x, y = np.asarray(sources[first : first + batch]), np.asarray(targets[first : first + batch])
        state, previous = steps.start(x), np.full(len(x), start_id, dtype="int32")
        for t in range(y.shape[1]):
            p, state = steps.next(previous, state, t)
            p = np.asarray(ops.convert_to_numpy(p), dtype="float64")
            real = y[:, t] != PAD_ID
            total -= float(np.log(np.clip(p[np.arange(len(y)), y[:, t]], 1e-12, 1.0))[real].sum())
            count += int(real.sum())
            previous = p.argmax(axis=-1).astype("int32")
    return total / max(count, 1)


def replay(model, source: np.ndarray, ids: list[int], start_id: int) -> tuple[np.ndarray, np.ndarray | None,
                                                                            np.ndarray | None]:
    """Run one written output back through the decoder (``DecoderSteps.teacher_forced``): the probability
    of each id ``(T,)``, the attention weights ``(T, S)`` and local attention's ``p_t`` ``(T,)`` (``None`` where
    there are none)."""
    ids = np.asarray(ids, dtype="int32")
    target_in = np.concatenate([[start_id], ids[:-1]]).astype("int32")[None]
    probabilities, weights, positions = steps_of(model).teacher_forced(np.asarray(source)[None], target_in)
    probabilities = np.asarray(ops.convert_to_numpy(probabilities))[0]
    return (probabilities[np.arange(len(ids)), ids].astype("float64"),
            None if weights is None else np.asarray(ops.convert_to_numpy(weights))[0, : len(ids)],
            None if positions is None else np.asarray(ops.convert_to_numpy(positions), dtype="float64")[0, : len(ids)])


def source_ids(tokenizer: Tokenizer, text: str, length: int) -> tuple[np.ndarray, list[str]]:
    """``text`` as the model reads it: ids padded to ``length`` ``(S,)``, and its tokens (trimmed to ``length``)."""
    ids = tokenizer.encode(text)
    if not str(text).strip() or not ids:
        raise ValueError("The source text is empty (nothing is left after standardisation): give it some words.")
    [padded], _ = tokenizer.pad_and_mask([ids], length)
    return padded, [tokenizer.vocab[i] for i in ids[:length]]


def translate_sources(model, target: Tokenizer, sources: np.ndarray, read: list[list[str]], width: int = 1,
                      length_penalty: float = 0.0, all_beams: bool = False):
    """Translate source rows ``sources`` (ids ``(N, S)``, or numbers ``(N, S, F)``; ``read``: each row's
    labels): greedy (``width`` 1) or the best of a beam search (every beam with ``all_beams``).

    Raises:
        ValueError: a beam width outside 1 .. 16.
    """
    if not 1 <= int(width) <= MAX_WIDTH:
        raise ValueError(f"The beam width must be 1 to {MAX_WIDTH}, got {width}.")
    eos, start = target.special_id(EOS), target.special_id(START)
    found = decode_ids(model, sources, start, eos, model.inputs[1].shape[1], int(width), length_penalty,
                       all_beams)

    def written(row: int, g) -> Translation:
        probabilities, attention, positions = replay(model, sources[row], list(g.tokens), start)
        tokens = [target.vocab[i] for i in g.tokens if i != eos]
        return Translation(read[row], tokens, target.decode([i for i in g.tokens if i != eos]), g.log_prob,
                           g.score, g.finished, probabilities, attention, positions)

    if all_beams:
        return [[written(row, g) for g in beams] for row, beams in enumerate(found)]
    return [written(row, g) for row, g in enumerate(found)]


def translate(model, source: Tokenizer, target: Tokenizer, texts: list[str], width: int = 1,
              length_penalty: float = 0.0, all_beams: bool = False) -> list[Translation] | list[list[Translation]]:
    """Translate raw ``texts`` (``translate_sources`` on their ids).

    Raises:
        ValueError: an empty text, or a beam width outside 1 .. 16.
    """
    read = [source_ids(source, text, model.inputs[0].shape[1]) for text in texts]
    return translate_sources(model, target, np.stack([ids for ids, _ in read]), [tokens for _, tokens in read],
                             width, length_penalty, all_beams)


def run_tokenizers(run) -> tuple[Tokenizer, Tokenizer]:
    """A translation run's source and target tokenisers; ``ValueError`` for another kind of run."""
    from seqlab.tasks import task_for

    assets = task_for("translate", run.meta.task, run.run_id).load_assets(run.path)
    return assets["tokenizer"], assets["target_tokenizer"]


def translate_run(run, texts: list[str], width: int = 1, length_penalty: float = 0.0,
                  model=None) -> list[Translation]:
    """``translate`` with a saved run's model (``model``: an already loaded one) and tokenisers."""
    source, target = run_tokenizers(run)
    return translate(model or run.load_model(), source, target, texts, width, length_penalty)
