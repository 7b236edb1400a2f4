"""The SavedModel of a translation run: strings in, translated strings out, served by TensorFlow alone.

Endpoints (the source tokeniser runs in the graph, ``seqlab.text.layers``; the target's vocabulary is a
constant of the graph):

- ``translate(texts)``: raw strings ``(N,)`` -> greedy translations ``(N,)``, from ``[START]`` to the first
  ``[EOS]`` (or ``L`` tokens), by the loop ``python -m seqlab translate`` runs
  (``seqlab.tasks.translate.translation.greedy_decoder``, the same tokens); for a source of numbers (an image, for
  a caption) ``translate(source)`` takes ``(N, S, F)`` in their own units;
- ``translate_beam(texts, length_penalty)``: the same sources and GNMT's ``alpha >= 0`` (a float32 scalar, 0: the
  plain sum of log-probabilities) -> ``{"texts": (N,), "scores": (N,)}``, the best hypothesis of a beam of
  ``BEAM_WIDTH`` (4, fixed: the graph's shapes hold it) and its score, by the loop ``python -m seqlab translate
  --beam 4`` runs (``seqlab.tasks.translate.translation.beam_decoder``);
- ``encode(source)``: source ids ``(N, S)`` (or numbers) -> the first step's state: the encoder's ``values``,
  the ``source_mask`` and what the decoder carries (``seqlab.models.decoder_steps``): a recurrent decoder's
  ``feed`` and ``state_0 ..`` (the encoder's last states), a Transformer's empty key/value caches ``key_0``,
  ``value_0 ..``;
- ``decode_step(previous, values, source_mask, step, *carried)``: one decoder step, the next token's
  probabilities and the new carried tensors, by name (the decoder of a beam search, in any language);
- ``serve(source, target_in)``: the teacher-forced probabilities ``(N, L, V)``, as every run's ``serve``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import keras

    from seqlab.data.sequence_data import SequenceData

TRANSLATE_ENDPOINT = "translate"
# The beams of translate_beam: a shape in its graph, so one width per SavedModel.
BEAM_WIDTH = 4


def export_translator(model: keras.Model, data: SequenceData, path: Path) -> None:
    import tensorflow as tf

    from seqlab.models.registry import steps_of  # here: the models import the tasks
    from seqlab.tasks.task import serve_archive
    from seqlab.tasks.translate import EOS_ID, START_ID, target_tokenizer_of, translate_inputs
    from seqlab.text import PAD_ID
    from seqlab.text.layers import tokenizer_layer
    from seqlab.tasks.translate.translation import beam_decoder, greedy_decoder

    steps, target, length = steps_of(model), target_tokenizer_of(data), data.horizon
    carried = steps.carried()
    archive = serve_archive(model)
    vocabulary = tf.constant(target.vocab)
    source_spec = translate_inputs(data)[0]
    source_signature = tf.TensorSpec([None, *source_spec.shape], source_spec.dtype)

    decode = greedy_decoder(steps, START_ID, EOS_ID, len(target.vocab))
    beam = beam_decoder(steps, START_ID, EOS_ID, len(target.vocab), BEAM_WIDTH)

    def texts_of(ids):
        """Target ids ``(N, L)`` as strings, cut before the first ``[EOS]`` (as ``Tokenizer.decode``)."""
        before_eos = tf.cumsum(tf.cast(ids == EOS_ID, tf.int32), axis=1) == 0
        tokens = tf.where(before_eos & (ids != PAD_ID), tf.gather(vocabulary, ids), "")
        return tf.strings.reduce_join(tokens, axis=1, separator=target.joiner)

    def greedy(source):
        return texts_of(decode(source, length)["ids"])  # (N, L): the CLI's greedy loop, [EOS] repeated once written

    def best_of_beam(source, length_penalty):
        found = beam(source, length, length_penalty)  # hypotheses best first: the first of each row
        return {"texts": texts_of(found["ids"][:, 0]), "scores": found["scores"][:, 0]}

    alpha = tf.TensorSpec([], tf.float32)
    if data.tokenizer is not None:  # raw strings in, the source tokeniser in the graph
        tokenize = tokenizer_layer(data.tokenizer, sequence_length=data.lookback, keep="first")
        archive.track(tokenize)  # its lookup table travels with the SavedModel
        texts = tf.TensorSpec([None], tf.string)
        translate = tf.function(lambda texts: greedy(tokenize(texts)), input_signature=[texts])
        translate_beam = tf.function(lambda texts, length_penalty: best_of_beam(tokenize(texts), length_penalty),
                                     input_signature=[texts, alpha])
    else:  # a source of numbers (an image's rows) in its own units
        translate = tf.function(greedy, input_signature=[source_signature])
        translate_beam = tf.function(best_of_beam, input_signature=[source_signature, alpha])

    encode = tf.function(steps.start, input_signature=[source_signature])

    @tf.function(input_signature=[
        tf.TensorSpec([None], tf.int32), tf.TensorSpec([None, data.lookback, steps.width], tf.float32),
        tf.TensorSpec([None, data.lookback], tf.bool), tf.TensorSpec([], tf.int32),
        *[tf.TensorSpec([None, *shape], tf.float32) for shape in carried.values()],
    ])  # fmt: skip
    def decode_step(previous, values, source_mask, step, *state):
        probabilities, new = steps.next(previous, {"values": values, "source_mask": source_mask,
                                                   **dict(zip(carried, state))}, step)
        return {"probabilities": probabilities, **{name: new[name] for name in carried}}

    archive.add_endpoint(TRANSLATE_ENDPOINT, translate)
    archive.add_endpoint("translate_beam", translate_beam)
    archive.add_endpoint("encode", encode)
    archive.add_endpoint("decode_step", decode_step)
    archive.write_out(str(path), verbose=False)
