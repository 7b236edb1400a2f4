"""The SavedModel of a text classifier or tagger: raw strings in, class probabilities out, served without seqlab.

Two endpoints, TensorFlow alone (the run's tokeniser runs in the graph,
``seqlab.text.layers``):

- ``serve(ids)``: token ids ``(N, T)`` -> probabilities ``(N, C)`` (classify)
  or ``(N, T, C)`` (label), as every run's SavedModel;
- ``serve_text(texts)``: raw strings ``(N,)`` -> the same probabilities. A
  text longer than ``T`` tokens keeps its first ``T`` (as the training
  sentences were trimmed); a shorter one is padded, and the padding masked.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from seqlab.tasks.task import export_serve

if TYPE_CHECKING:
    import keras

    from seqlab.data.sequence_data import SequenceData

TEXT_ENDPOINT = "serve_text"


def export_sequence(model: keras.Model, data: SequenceData, path: Path) -> None:
    """A text run's SavedModel with ``serve_text`` beside ``serve``; a numeric run's with ``serve`` alone."""
    if data.tokenizer is None:
        export_serve(model, data, path)
        return
    import tensorflow as tf

    from seqlab.tasks.task import serve_archive
    from seqlab.text.layers import tokenizer_layer

    archive = serve_archive(model)
    tokenize = tokenizer_layer(data.tokenizer, sequence_length=data.lookback, keep="first")
    archive.track(tokenize)  # its lookup table travels with the SavedModel

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def serve_text(texts):
        return model(tokenize(texts), training=False)

    archive.add_endpoint(TEXT_ENDPOINT, serve_text)
    archive.write_out(str(path), verbose=False)
