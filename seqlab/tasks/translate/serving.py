"""The SavedModel of a translation run: strings in, translated strings out, served by TensorFlow alone.

Endpoints (the source tokeniser runs in the graph, ``seqlab.text.layers``; the target's vocabulary is a
constant of the graph):

- ``translate(texts)``: raw strings ``(N,)`` -> greedy translations ``(N,)``, from ``[START]`` to the first
  ``[EOS]`` (or ``L`` tokens), by the loop ``python -m seqlab translate`` runs (``seqlab.tasks.translate.translation.greedy_decoder``,
  the same tokens); for a source of numbers (an image, for a caption) ``translate(source)`` takes
  ``(N, S, F)`` in their own units;
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


def export_translator(model: keras.Model, data: SequenceData, path: Path) -> None:
    import tensorflow as tf

    from seqlab.models.registry import steps_of  # here: the models import the tasks
    from seqlab.tasks.task import serve_archive
    from seqlab.tasks.translate import EOS_ID, START_ID, target_tokenizer_of, translate_inputs
    from seqlab.text import PAD_ID
    from seqlab.text.layers import tokenizer_layer
    from seqlab.tasks.translate.translation import greedy_decoder

    steps, target, length = steps_of(model), target_tokenizer_of(data), data.horizon
    carried = steps.carried()
    archive = serve_archive(model)
    vocabulary = tf.constant(target.vocab)
    source_spec = translate_inputs(data)[0]
    source_signature = tf.TensorSpec([None, *source_spec.shape], source_spec.dtype)

    decode = greedy_decoder(steps, START_ID, EOS_ID, len(target.vocab))

    def greedy(source):
        ids = decode(source, length)["ids"]  # (N, L): the CLI's greedy loop, [EOS] repeated once written
        before_eos = tf.cumsum(tf.cast(ids == EOS_ID, tf.int32), axis=1) == 0
        tokens = tf.where(before_eos & (ids != PAD_ID), tf.gather(vocabulary, ids), "")  # as Tokenizer.decode
        return tf.strings.reduce_join(tokens, axis=1, separator=target.joiner)

    if data.tokenizer is not None:  # raw strings in, the source tokeniser in the graph
        tokenize = tokenizer_layer(data.tokenizer, sequence_length=data.lookback, keep="first")
        archive.track(tokenize)  # its lookup table travels with the SavedModel
        translate = tf.function(lambda texts: greedy(tokenize(texts)),
                                input_signature=[tf.TensorSpec([None], tf.string)])
    else:  # a source of numbers (an image's rows) in its own units
        translate = tf.function(greedy, input_signature=[source_signature])

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
    archive.add_endpoint("encode", encode)
    archive.add_endpoint("decode_step", decode_step)
    archive.write_out(str(path), verbose=False)
