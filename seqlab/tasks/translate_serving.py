"""The SavedModel of a translation run: strings in, translated strings out, served by TensorFlow alone.

Endpoints (the source tokeniser runs in the graph, ``seqlab.text.layers``; the target's vocabulary is a
constant of the graph):

- ``translate(texts)``: raw strings ``(N,)`` -> greedy translations ``(N,)``, from ``[START]`` to the first
  ``[EOS]`` (or ``L`` tokens); for a source of numbers (an image, for a caption) ``translate(source)`` takes
  ``(N, S, F)`` in their own units;
- ``encode(source)``: source ids ``(N, S)`` (or numbers) -> the encoder's top states ``values`` and its last
  states;
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

    from seqlab.models.seq2seq import DECODER, ENCODER, real_steps  # here: the models import the tasks
    from seqlab.tasks.translate import EOS_ID, START_ID, target_tokenizer_of, translate_inputs
    from seqlab.text import PAD_ID
    from seqlab.text.layers import tokenizer_layer

    encoder, decoder = model.get_layer(ENCODER), model.get_layer(DECODER)
    target = target_tokenizer_of(data)
    length, units, states = data.horizon, decoder.units, len(encoder.outputs) - 1
    archive = keras.export.ExportArchive()
    archive.track_and_add_endpoint("serve", model, get_input_signature(model))
    vocabulary = tf.constant(target.vocab)
    source_spec = translate_inputs(data)[0]
    source_signature = tf.TensorSpec([None, *source_spec.shape], source_spec.dtype)

    def feed_of(values):
        return decoder.start_feed(values) if decoder.input_feeding else None

    def greedy(source):
        values, *last = encoder(source, training=False)
        layer_states, feed, real = decoder.group(last), feed_of(values), real_steps(source)
        previous, written = tf.fill([tf.shape(source)[0]], START_ID), []
        for t in range(length):  # unrolled: L steps of the greedy decoder
            probabilities, layer_states, feed, _, _ = decoder.step(previous, layer_states, values, real, t, feed)
            previous = tf.cast(tf.argmax(probabilities, axis=-1), tf.int32)
            written.append(previous)
        ids = tf.stack(written, axis=1)  # (N, L)
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

    @tf.function(input_signature=[source_signature])
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
