"""The ``ding_en_de`` dataset: English-German example sentences of Debian's ``trans-de-en`` dictionary.

The Ding dictionary (TU Chemnitz, GPL-2.0-or-later), as Debian's package
``trans-de-en`` installs it at ``/usr/share/trans/de-en``, holds one entry a line,
``German :: English``; each side lists the same sub-entries in the same order,
separated by `` | ``, with alternatives separated by ``; ``::

    Abschied {m} | Abschied nehmen | Er verabschiedete sich. :: leave | to take leave | He took leave.

The dataset keeps the aligned sub-entries that are sentences on both sides
(a capital first, ``.``, ``!`` or ``?`` last) of ``min_words`` to ``max_words``
English words, the first alternative of each, with the dictionary's markers
(``{m}``, ``[ugs.]``, ``<...>``) removed: English is the source, German the
target. The file is read from the ``dictionary`` option, else the environment
variable ``SEQLAB_DING_FILE``, else the Debian path; when it is absent, loading
says how to install it.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from seqlab.checks import Range
from seqlab.data.registry import DatasetInfo, register
from seqlab.data.sequence_data import SequenceData
from seqlab.data.text_pairs import PAIR_TEXT_CHOICES, PAIR_TEXT_DEFAULTS, PAIR_TEXT_RANGES, pair_data
from seqlab.inputs import InputLimits, read_text

NAME = "ding_en_de"
DEBIAN_FILE = "/usr/share/trans/de-en"
ENVIRONMENT = "SEQLAB_DING_FILE"
# The Debian file is about 25 MB: more than a user's upload may be, still read through the input checks.
LIMITS = InputLimits(max_bytes=200 << 20, max_chars=200_000_000, max_rows=10_000_000)
DEFAULTS = {
    "dictionary": "", "min_words": 3, "max_words": 12, "samples": 0,
    **PAIR_TEXT_DEFAULTS, "tokenizer": "word", "vocab_size": 8000, "lowercase": True,
}  # fmt: skip
_MARKERS = re.compile(r"\{[^}]*\}|\[[^\]]*\]|<[^>]*>")
_SENTENCE = re.compile(r"[A-ZÄÖÜ].*[.!?]")


def dictionary_path(dictionary: str = "") -> str:
    """The file to read: ``dictionary``, else ``$SEQLAB_DING_FILE``, else the Debian path; refused when absent."""
    path = dictionary or os.environ.get(ENVIRONMENT) or DEBIAN_FILE
    if not os.path.isfile(path):
        raise ValueError(
            f"The Ding dictionary file {path!r} is not there. On Debian or Ubuntu install it with "
            f"`sudo apt-get install trans-de-en` (it puts the file at {DEBIAN_FILE}), or point the dictionary "
            f"option or the {ENVIRONMENT} environment variable at a copy of that file."
        )
    return path


def clean(part: str) -> str:
    """The first alternative of a sub-entry, without the dictionary's markers and doubled spaces."""
    return " ".join(_MARKERS.sub(" ", part.split("; ")[0]).split())


def example_pairs(text: str, min_words: int, max_words: int) -> pd.DataFrame:
    """Columns ``source`` (English), ``target`` (German), ``line``: the example sentences (module docstring)."""
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#") or line.count(" :: ") != 1:
            continue
        german, english = (side.split(" | ") for side in line.split(" :: "))
        if len(german) != len(english):  # sub-entries that do not line up cannot be paired
            continue
        for de, en in zip(map(clean, german), map(clean, english)):
            if _SENTENCE.fullmatch(de) and _SENTENCE.fullmatch(en) and min_words <= len(en.split()) <= max_words:
                rows.append((en, de, number))
    return pd.DataFrame(rows, columns=["source", "target", "line"])


def ding_frame(
    dictionary: str = "", min_words: int = DEFAULTS["min_words"], max_words: int = DEFAULTS["max_words"],
    samples: int = DEFAULTS["samples"], seed: int = DEFAULTS["seed"],
) -> pd.DataFrame:  # fmt: skip
    """The example pairs, all of them or ``samples`` drawn by ``seed`` (in file order)."""
    if max_words < min_words:
        raise ValueError(f"max_words ({max_words}) is below min_words ({min_words}): give min_words <= max_words.")
    path = dictionary_path(dictionary)
    frame = example_pairs(read_text(path, LIMITS, what="Ding dictionary file"), min_words, max_words)
    if frame.empty:
        raise ValueError(
            f"{path!r} holds no example sentences of {min_words} to {max_words} words in the Ding format "
            "(German :: English, sub-entries separated by ' | '): is it the trans-de-en file? Widen the word range."
        )
    if samples and samples < len(frame):
        chosen = np.sort(np.random.default_rng(seed).choice(len(frame), samples, replace=False))
        frame = frame.iloc[chosen].reset_index(drop=True)
    return frame


def load_ding_en_de(dictionary: str, min_words: int, max_words: int, samples: int, **options) -> SequenceData:
    own = {"dictionary": dictionary, "min_words": min_words, "max_words": max_words, "samples": samples}
    frame = ding_frame(dictionary, min_words, max_words, samples, options["seed"])
    return pair_data(NAME, frame["source"], frame["target"], {**own, **options}, columns={"line": frame["line"]})


register(
    DatasetInfo(
        name=NAME,
        title="English-German example sentences (Ding dictionary)",
        task="translate",
        description=(
            "The example sentences of the Ding English-German dictionary (\"He took leave.\" -> \"Er "
            "verabschiedete sich.\"), English to German, min_words to max_words English words; word tokens, "
            "lower case; a random 80 / 10 / 10 % split by seed. Needs Debian's trans-de-en package: "
            f"`sudo apt-get install trans-de-en` puts the file at {DEBIAN_FILE} (or point the dictionary option or "
            f"${ENVIRONMENT} at a copy)."
        ),
        source=f"Debian package trans-de-en (Ding 1.9, dict.tu-chemnitz.de), file {DEBIAN_FILE}",
        licence="GPL-2.0-or-later (Frank Richter, TU Chemnitz)",
        frame=ding_frame,
        load=load_ding_en_de,
        defaults=dict(DEFAULTS),
        ranges={**PAIR_TEXT_RANGES, "min_words": Range(1, 1000), "max_words": Range(1, 1000),
                "samples": Range(0, 10_000_000)},  # fmt: skip
        choices=PAIR_TEXT_CHOICES,
    )
)
