"""A BERT pre-training run's SavedModel: token ids, and raw strings with [MASK] filled in, served without seqlab.

Two endpoints, TensorFlow alone (the run's tokeniser runs in the graph,
``seqlab.text.layers``):

- ``serve(ids)``: ids ``(N, T)`` of ``[CLS] A [SEP] B [SEP]`` -> the aligned
  probabilities ``(N, T, V)`` (the next-sentence head at [CLS]);
- ``fill(texts)``: raw strings ``(N,)``, each ``[MASK]`` (any case) a blank ->
  ``tokens`` ``(N, T)``, what the model read as ``[CLS] text [SEP]``;
  ``is_blank`` ``(N, T)``; ``top_tokens`` and ``top_probabilities``
  ``(N, T, 5)``, the five most probable words at every position (specials
  left out, probabilities renormalised over the words), as
  ``seqlab.tasks.masked_lm.fill_in``. A text longer than ``T - 2`` tokens keeps its first
  ``T - 2`` (``seqlab.tasks.masked_lm.fill_in`` keeps the ones around its blanks instead).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import keras

    from seqlab.data.sequence_data import SequenceData

FILL_ENDPOINT = "fill"
FILL_TOP_K = 5


def export_fill(model: keras.Model, data: SequenceData, path: Path) -> None:
    """Write the SavedModel with ``serve`` and ``fill`` (module docstring)."""
    import tensorflow as tf

    from seqlab.data.bert_pretraining import CLS_ID, FIRST_WORD_ID, MASK_ID, SEP_ID
    from seqlab.tasks.masked_lm.tokenizer import bert_tokenizer_of
    from seqlab.tasks.task import serve_archive
    from seqlab.text import MASK, PAD_ID
    from seqlab.text.layers import tokenizer_layer

    tokenizer, length = bert_tokenizer_of(data), data.lookback
    archive = serve_archive(model)
    tokenize = tokenizer_layer(tokenizer)
    archive.track(tokenize)  # its lookup table travels with the SavedModel
    vocab = tf.constant(tokenizer.vocab)

    def column(value, rows):
        return tf.RaggedTensor.from_tensor(tf.fill([rows, 1], tf.constant(value, tf.int32)))

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def fill(texts):
        pieces = tf.strings.split(tf.strings.regex_replace(texts, r"(?i)\[mask\]", MASK), MASK)  # (N, P) ragged
        flat = pieces.flat_values
        ids = tf.RaggedTensor.from_tensor(tokenize(flat), padding=PAD_ID)  # each piece's ids
        marked = tf.concat([ids, column(MASK_ID, tf.shape(flat)[0])], axis=1)  # a [MASK] after every piece
        joined = pieces.with_flat_values(marked).merge_dims(1, 2)[:, :-1]  # ... but the last
        rows = tf.shape(texts)[0]
        framed = tf.concat([column(CLS_ID, rows), joined[:, : length - 2], column(SEP_ID, rows)], axis=1)
        x = framed.to_tensor(default_value=PAD_ID, shape=[None, length])
        words = model(x, training=False)[..., FIRST_WORD_ID:]  # a blank is a word, never a special token
        top = tf.math.top_k(words, k=FILL_TOP_K)
        return {
            "tokens": tf.gather(vocab, x),
            "is_blank": tf.equal(x, MASK_ID),
            "top_tokens": tf.gather(vocab, top.indices + FIRST_WORD_ID),
            "top_probabilities": top.values / tf.reduce_sum(words, axis=-1, keepdims=True),
        }

    archive.add_endpoint(FILL_ENDPOINT, fill)
    archive.write_out(str(path), verbose=False)
