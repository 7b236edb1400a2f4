"""The SavedModel of a translation run: strings in, translated strings out, served by TensorFlow alone.

Endpoints (the source tokeniser runs in the graph, ``seqlab.text.layers``; the target's vocabulary is a
constant of the graph):

- ``translate(texts)``: raw strings ``(N,)`` -> greedy translations ``(N,)``, from ``[START]`` to the first
  ``[EOS]`` (or ``L`` tokens);
- ``encode(source)``: source ids ``(N, S)`` -> the encoder's top states ``values`` and its last states;
- ``decode_step(previous, values, source_mask, step, feed, states)``: one decoder step, the next token's
  probabilities and the new states (the decoder of a beam search, in any language);
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
    import keras
    import tensorflow as tf
    from keras.src.export.saved_model import get_input_signature  # what model.export uses for ``serve``

    from seqlab.models.seq2seq import DECODER, ENCODER  # here: the models import the tasks
    from seqlab.tasks.translate import EOS_ID, START_ID, target_tokenizer_of
    from seqlab.text import PAD_ID
    from seqlab.text.layers import tokenizer_layer

    encoder, decoder = model.get_layer(ENCODER), model.get_layer(DECODER)
    target = target_tokenizer_of(data)
    length, units, states = data.horizon, decoder.units, len(encoder.outputs) - 1
    archive = keras.export.ExportArchive()
    archive.track_and_add_endpoint("serve", model, get_input_signature(model))
    tokenize = tokenizer_layer(data.tokenizer, sequence_length=data.lookback, keep="first")
    archive.track(tokenize)  # its lookup table travels with the SavedModel
    vocabulary = tf.constant(target.vocab)

    def feed_of(values):
        return decoder.start_feed(values) if decoder.input_feeding else None

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def translate(texts):
        source = tokenize(texts)
        values, *last = encoder(source, training=False)
        layer_states, feed = decoder.group(last), feed_of(values)
        previous, written = tf.fill([tf.shape(source)[0]], START_ID), []
        for t in range(length):  # unrolled: L steps of the greedy decoder
            probabilities, layer_states, feed, _, _ = decoder.step(previous, layer_states, values, source != 0, t,
                                                                   feed)
            previous = tf.cast(tf.argmax(probabilities, axis=-1), tf.int32)
            written.append(previous)
        ids = tf.stack(written, axis=1)  # (N, L)
        before_eos = tf.cumsum(tf.cast(ids == EOS_ID, tf.int32), axis=1) == 0
        tokens = tf.where(before_eos & (ids != PAD_ID), tf.gather(vocabulary, ids), "")  # as Tokenizer.decode
        return tf.strings.reduce_join(tokens, axis=1, separator=target.joiner)

    @tf.function(input_signature=[tf.TensorSpec([None, data.lookback], tf.int32)])
    def encode(source):
        values, *last = encoder(source, training=False)
        return {"values": values, **{f"state_{i}": s for i, s in enumerate(last)}}

    @tf.function(input_signature=[
        tf.TensorSpec([None], tf.int32), tf.TensorSpec([None, data.lookback, units], tf.float32),
        tf.TensorSpec([None, data.lookback], tf.bool), tf.TensorSpec([], tf.int32),
        tf.TensorSpec([None, units], tf.float32), *[tf.TensorSpec([None, units], tf.float32)] * states,
    ])  # fmt: skip
    def decode_step(previous, values, source_mask, step, feed, *last):
        probabilities, layer_states, feed, _, _ = decoder.step(
            previous, decoder.group(list(last)), values, source_mask, tf.cast(step, tf.float32),
            feed if decoder.input_feeding else None,
        )
        new = [s for layer in layer_states for s in layer]
        return {"probabilities": probabilities, "feed": feed if feed is not None else tf.zeros_like(values[:, 0]),
                **{f"state_{i}": s for i, s in enumerate(new)}}

    archive.add_endpoint(TRANSLATE_ENDPOINT, translate)
    archive.add_endpoint("encode", encode)
    archive.add_endpoint("decode_step", decode_step)
    archive.write_out(str(path), verbose=False)
