r"""A language run's SavedModel: token ids, raw strings, and greedy generation, served without seqlab.

Three endpoints, all TensorFlow alone (the run's tokeniser runs in the graph,
``seqlab.text.layers``):

- ``serve(ids)``: token ids ``(N, T)`` -> next-token probabilities ``(N, T, V)``.
- ``next_log_probs(texts)``: raw strings ``(N,)`` -> ``(N, V)``, the
  log-probabilities of the token after each string's last one.
- ``generate(texts, tokens)``: raw strings ``(N,)`` and a count ``n`` -> the
  ``n`` tokens that greedy decoding appends to each string, as text ``(N,)``
  (the prompt not repeated; the padding token never chosen):

$$ x_{L+1} = \arg\max_{k \ne \mathrm{PAD}} p(k \mid x_{L-T+1}, \dots, x_L) $$

A string longer than ``T`` tokens keeps its last ``T``; a shorter one is
padded after its end, which a causal model never reads before its last token.
Generation slides the same window: every step reads at most the last ``T``
tokens, the context the model was trained on. (``seqlab generate`` carries a
recurrent model's state instead, so its context is the whole prompt; the two
agree while prompt and continuation fit in ``T`` tokens.)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import keras

    from seqlab.data.sequence_data import SequenceData

TEXT_ENDPOINT = "next_log_probs"
GENERATE_ENDPOINT = "generate"


def export_with_text(model: keras.Model, data: SequenceData, path: Path) -> None:
    """Write the SavedModel of a language run with its three endpoints (module docstring)."""
    import tensorflow as tf

    from seqlab.tasks.task import serve_archive
    from seqlab.tasks.text_inputs import tokenizer_of
    from seqlab.text import PAD_ID
    from seqlab.text.layers import tokenizer_layer

    lookback = data.lookback
    archive = serve_archive(model)
    tokenize = tokenizer_layer(tokenizer_of(data), sequence_length=lookback, keep="last")
    archive.track(tokenize)  # its lookup table travels with the SavedModel

    def known_lengths(ids):
        """Tokens before the padding of each row ``(N,)``."""
        return tf.reduce_sum(tf.cast(ids != PAD_ID, tf.int32), axis=1)

    def last_probabilities(window, position):
        """``(N, V)``: the model's distribution at ``position`` ``(N,)`` of each window ``(N, T)``."""
        return tf.gather(model(window, training=False), position, batch_dims=1)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def next_log_probs(texts):
        ids = tokenize(texts)  # (N, T), padded after the text
        last = tf.maximum(known_lengths(ids) - 1, 0)
        return tf.math.log(tf.maximum(last_probabilities(ids, last), 1e-12))  # (N, V)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string), tf.TensorSpec([], tf.int32)])
    def generate(texts, tokens):
        ids = tokenize(texts)
        checks = [
            tf.debugging.assert_positive(known_lengths(ids), message="a prompt is empty after standardisation: "
                                         "give every prompt some text"),
            tf.debugging.assert_non_negative(tokens, message="tokens (how many to generate) must be 0 or more"),
        ]
        with tf.control_dependencies(checks):  # nothing runs on a refused input
            ids, tokens = tf.identity(ids), tf.identity(tokens)
        lengths, rows = known_lengths(ids), tf.shape(ids)[0]
        # Prompt and continuation side by side in one buffer; each row has its own length.
        buffer = tf.concat([ids, tf.zeros((rows, tokens), tf.int32)], axis=1)  # (N, T + n)
        steps = tf.range(lookback)[None, :]

        def step(i, buffer, length):
            start = tf.maximum(length - lookback, 0)  # the window: the last T tokens, or the first T
            window = tf.gather(buffer, start[:, None] + steps, batch_dims=1)
            p = last_probabilities(window, length - 1 - start)
            p = tf.where(tf.range(tf.shape(p)[1])[None, :] == PAD_ID, -1.0, p)  # padding is never chosen
            chosen = tf.argmax(p, axis=-1, output_type=tf.int32)
            buffer = tf.tensor_scatter_nd_update(buffer, tf.stack([tf.range(rows), length], axis=1), chosen)
            return i + 1, buffer, length + 1

        _, buffer, _ = tf.while_loop(lambda i, *_: i < tokens, step, (tf.constant(0), buffer, lengths))
        continuation = tf.gather(buffer, lengths[:, None] + tf.range(tokens)[None, :], batch_dims=1)
        return tokenize.detokenize(continuation)

    archive.add_endpoint(TEXT_ENDPOINT, next_log_probs)
    archive.add_endpoint(GENERATE_ENDPOINT, generate)
    archive.write_out(str(path), verbose=False)
