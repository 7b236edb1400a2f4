"""Embeddings as the notes' three encodings of a word (seeds 000 and 004).

- A: `OneHot`, ids as one-hot vectors;
- B: `GivenEmbedding`, fixed vectors made elsewhere (`from_glove` reads a GloVe file);
- C: `LearnedEmbedding`, one-hot times a learned matrix A (what `keras.layers.Embedding` computes).
"""

from seqlab.layers.embedding.given import GivenEmbedding
from seqlab.layers.embedding.glove import GloveVectors, read_glove
from seqlab.layers.embedding.learned import LearnedEmbedding
from seqlab.layers.embedding.one_hot import OneHot

__all__ = ["GivenEmbedding", "GloveVectors", "LearnedEmbedding", "OneHot", "read_glove"]
