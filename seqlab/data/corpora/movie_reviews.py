"""Rated movie-review sentences, read from the ``vaderSentiment==3.3.2`` source distribution.

The sdist ships the data of Hutto & Gilbert (ICWSM 2014) as
``additional_resources/hutto_ICWSM_2014.tar.gz``; inside it,
``movieReviewSnippets_GroundTruth.txt`` holds 10,605 sentences of Rotten Tomatoes
reviews (from the 2,000 reviews of Pang & Lee, 2004, cut into sentences with
NLTK), each with the mean of 20 people's ratings from -4 (very negative) to +4
(very positive). The format: UTF-8, CRLF line ends, one sentence a line,
tab-separated ``ID``, ``MEAN-SENTIMENT-RATING``, ``TEXT-SNIPPET``.

The tarball is fetched once with ``pip download`` into the user's cache folder
(``seqlab.data.corpora.pypi_sdist``) and both archives are read in memory,
only the one member of each, never extracted to disk.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from seqlab.data.corpora.pypi_sdist import ArchiveCaps, fetch_sdist, read_members
from seqlab.inputs import InputLimits, decode_text, read_bytes

PACKAGE = "vaderSentiment"
VERSION = "3.3.2"
# The sdist as PyPI serves it (checked after a download, so a swapped file is refused).
SHA256 = "5d7c06e027fc8b99238edb0d53d970cf97066ef97654009890b83703849632f9"
ARCHIVE = f"{PACKAGE}-{VERSION}/additional_resources/hutto_ICWSM_2014.tar.gz"
SENTENCES = "hutto_ICWSM_2014/movieReviewSnippets_GroundTruth.txt"
LICENCE = (
    "MIT (the vaderSentiment package, C.J. Hutto); the sentences are from Pang & Lee's Rotten Tomatoes "
    "reviews, rated by Hutto & Gilbert (ICWSM 2014): cite both"
)
# Caps, a few times what 3.3.2 holds (2.5 MB sdist, 2.3 MB inner archive, 1.4 MB of sentences, 24 members).
_CAPS = ArchiveCaps(members=500, member_bytes=16 << 20, unpacked_bytes=64 << 20)
_LIMITS = InputLimits(max_bytes=16 << 20, max_chars=_CAPS.member_bytes)


def fetch_vader() -> Path:
    """The cached sdist, ``<cache>/movie_sentiment/vaderSentiment-3.3.2.tar.gz``, downloaded once when missing."""
    return fetch_sdist(PACKAGE, VERSION, SHA256, "movie_sentiment", "The movie-review sentences (vaderSentiment sdist)")


def parse_ratings(text: str, what: str = SENTENCES) -> pd.DataFrame:
    """``ID<TAB>rating<TAB>sentence`` lines -> a frame with columns ``id``, ``rating``, ``text`` (blank lines skipped).

    A tab inside a sentence stays in the sentence; a line with fewer fields or a rating that is
    not a finite number is refused with its line number.
    """
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("\t", 2)
        rating = _number(fields[1]) if len(fields) == 3 else None
        if rating is None:
            raise ValueError(
                f"{what}, line {number}, is not 'ID<TAB>rating<TAB>sentence' ({line[:60]!r}): give the "
                f"{PACKAGE}=={VERSION} sdist unchanged."
            )
        rows.append((fields[0].strip(), rating, fields[2].strip()))
    return pd.DataFrame(rows, columns=["id", "rating", "text"])


def load_movie_reviews(tarball: str | Path | None = None) -> pd.DataFrame:
    """The 10,605 rated sentences in file order: columns ``id``, ``rating`` (mean, -4 .. +4), ``text``.

    Args:
        tarball: the sdist to read; ``None``: the cached one, fetched once by ``fetch_vader``.
    """
    path = fetch_vader() if tarball is None else Path(tarball)
    label = f"The vaderSentiment source distribution {path.name!r}"
    data = read_bytes(path, _LIMITS, what="vaderSentiment source distribution", raw=True)
    release = f"{PACKAGE}=={VERSION}"
    inner = read_members(data, (ARCHIVE,), label, release, _CAPS)[ARCHIVE]
    inner_label = f"{label} ({ARCHIVE.rsplit('/', 1)[-1]})"
    raw = read_members(inner, (SENTENCES,), inner_label, release, _CAPS)[SENTENCES]
    table = parse_ratings(decode_text(raw, _LIMITS, what=SENTENCES))
    if table.empty:
        raise ValueError(f"{label}: {SENTENCES} holds no sentences; give the {PACKAGE}=={VERSION} sdist.")
    return table


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None
