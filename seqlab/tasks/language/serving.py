r"""A language run's SavedModel: token ids, raw strings, and greedy generation, served without seqlab.

Three endpoints, all TensorFlow alone (the run's tokeniser runs in the graph,
``seqlab.text.layers``):

- ``serve(ids)``: token ids ``(N, T)`` -> next-token probabilities ``(N, T, V)``.
- ``next_log_probs(texts)``: raw strings ``(N,)`` -> ``(N, V)``, the
  log-probabilities of the token after each string's last one.
- ``generate(texts, tokens)``: raw strings ``(N,)`` and a count ``n`` -> the
  ``n`` tokens that greedy decoding appends to each string, as text ``(N,)``
  (the prompt not repeated; the padding token never chosen).

``generate`` runs the loop ``python -m seqlab generate`` runs
(``seqlab.decoding.while_loop`` over the model's ``seqlab.models.steps``):
it carries the same state (a recurrent model's cells, a GPT's key/value cache,
an HMM's forward state) through the whole prompt and its continuation, so both
give the same tokens for a prompt of any length. A model with a context (a
GPT's ``T``) reads a prompt's last ``T`` tokens, as the CLI does.
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

    from seqlab.decoding.while_loop import continuation, with_room
    from seqlab.tasks.language.generate import language_decoder  # here: the models import the tasks
    from seqlab.models.registry import steps_of
    from seqlab.tasks.task import serve_archive
    from seqlab.tasks.text_inputs import tokenizer_of
    from seqlab.text import PAD_ID
    from seqlab.text.layers import tokenizer_layer

    steps, tokenizer = steps_of(model), tokenizer_of(data)
    archive = serve_archive(model)
    tokenize = tokenizer_layer(tokenizer, sequence_length=data.lookback, keep="last")
    archive.track(tokenize)  # its lookup table travels with the SavedModel
    # What generation reads of a prompt: its last T ids for a model with a context, else all of it.
    prompt_ids = tokenizer_layer(tokenizer, sequence_length=steps.context, keep="last")
    archive.track(prompt_ids)
    decode = language_decoder(steps, tokenizer.vocab_size)

    def known_lengths(ids):
        """Tokens before the padding of each row ``(N,)``."""
        return tf.reduce_sum(tf.cast(ids != PAD_ID, tf.int32), axis=1)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def next_log_probs(texts):
        ids = tokenize(texts)  # (N, T), padded after the text
        last = tf.maximum(known_lengths(ids) - 1, 0)
        probabilities = tf.gather(model(ids, training=False), last, batch_dims=1)  # (N, V) after the last id
        return tf.math.log(tf.maximum(probabilities, 1e-12))

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string), tf.TensorSpec([], tf.int32)])
    def generate(texts, tokens):
        ids = prompt_ids(texts)  # (N, L), padded after each prompt
        checks = [
            tf.debugging.assert_positive(known_lengths(ids), message="a prompt is empty after standardisation: "
                                         "give every prompt some text"),
            tf.debugging.assert_non_negative(tokens, message="tokens (how many to generate) must be 0 or more"),
        ]
        with tf.control_dependencies(checks):  # nothing runs on a refused input
            ids, tokens = tf.identity(ids), tf.identity(tokens)
        lengths = known_lengths(ids)
        decoded = decode(ids, with_room(ids, tokens), lengths, tokens)
        return prompt_ids.detokenize(continuation(decoded, lengths, tokens)["ids"])

    archive.add_endpoint(TEXT_ENDPOINT, next_log_probs)
    archive.add_endpoint(GENERATE_ENDPOINT, generate)
    archive.write_out(str(path), verbose=False)
