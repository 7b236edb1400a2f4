"""Contextual embeddings: the same word in different sentences gets different vectors from BERT's last layer.

A word embedding (seed 004's C) gives "bank" one vector; the encoder's last
layer gives it a vector per sentence, mixed by self-attention from the words
around it. ``contextual_vectors(model, tokenizer, word, sentences)`` returns
that vector in every sentence (its first occurrence, read as ``[CLS]
sentence [SEP]``), and ``cosine_similarities`` how alike they are:

$$ \\cos(z_a, z_b) = \\frac{z_a^\\top z_b}{\\lVert z_a \\rVert\\, \\lVert z_b \\rVert} $$
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from seqlab.data.bert_pretraining import CLS_ID, SEP_ID
from seqlab.text import PAD_ID, UNK_ID

if TYPE_CHECKING:
    import keras

    from seqlab.text import Tokenizer


def last_encoder_layer(model: keras.Model) -> keras.layers.Layer:
    blocks = [layer for layer in model.layers if layer.name.startswith("encoder_")]
    if not blocks:
        raise ValueError(f"Model {model.name!r} has no encoder blocks (layers named encoder_1, ...): contextual "
                         "embeddings come from a BERT run.")
    return blocks[-1]


def contextual_vectors(model: keras.Model, tokenizer: Tokenizer, word: str, sentences: list[str]) -> np.ndarray:
    """The last layer's vector ``(len(sentences), d)`` of ``word`` in each sentence (a BERT pre-training run's model).

    Raises ``ValueError`` for a word that is not one known token, or a sentence without it (or where it lies
    beyond the model's context).
    """
    import keras

    ids = tokenizer.encode(word)
    if len(ids) != 1 or ids[0] == UNK_ID:
        raise ValueError(f"{word!r} is {len(ids)} tokens" + (" unknown to the model" if UNK_ID in ids else "") +
                         ": give one word of the run's vocabulary.")
    length = int(model.inputs[0].shape[1])
    rows, positions = np.full((len(sentences), length), PAD_ID, dtype="int32"), []
    for n, sentence in enumerate(sentences):
        row = [CLS_ID, *tokenizer.encode(sentence)[: length - 2], SEP_ID]
        if ids[0] not in row:
            raise ValueError(f"Sentence {n + 1} ({sentence!r}) does not contain {word!r} within its first "
                             f"{length - 2} tokens: give sentences that use the word.")
        rows[n, : len(row)] = row
        positions.append(row.index(ids[0]))
    encoder = keras.Model(model.inputs[0], last_encoder_layer(model).output)
    z = np.asarray(encoder(rows, training=False))  # (N, T, d)
    return z[np.arange(len(sentences)), positions]


def cosine_similarities(vectors: np.ndarray) -> np.ndarray:
    """``(N, N)`` cosine similarity of every pair of rows."""
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return unit @ unit.T
