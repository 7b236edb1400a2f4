"""The ``pydoc`` dataset: Python's own help topics as language-model data (always present, offline)."""

from __future__ import annotations

import pandas as pd

from seqlab.data.corpora import load_pydoc
from seqlab.data.corpora.pydoc_topics import LICENCE
from seqlab.data.text_windows import register_corpus


def pydoc_frame() -> pd.DataFrame:
    """One row per help topic: its name and length, for the Data page."""
    from pydoc_data.topics import topics

    names = load_pydoc().parts
    return pd.DataFrame({"topic": names, "characters": [len(topics[name].strip()) for name in names]})


register_corpus(
    name="pydoc",
    title="Python help topics (text)",
    description=(
        "The text of Python's help() topics (about 0.5 M characters), for language models: the first "
        "90 % trains, the last 10 % is held out. Tokenised by characters, words or BPE (fitted on the "
        "training text only); windows of `lookback` tokens predict the next token at every position."
    ),
    source="pydoc_data.topics of the running Python",
    licence=LICENCE,
    frame=pydoc_frame,
    corpus=load_pydoc,
)
