"""The Japanese vowels utterances, read from the ``sktime==1.2.0`` source distribution.

Kudo, Toyama & Shimbo (1999): nine male speakers each said the Japanese vowels
/ae/ in a row; every utterance is a sequence of 7 to 29 frames of 12 LPC
cepstrum coefficients (a 12-degree linear prediction analysis), and the task is
to name the speaker. The published split: 270 training utterances (30 a
speaker) and 370 test ones (24 to 88 a speaker, recorded later). sktime's sdist
ships both as ``.ts`` files (``seqlab.data.corpora.ts_format``); the package
itself is not needed: the tarball is fetched once with ``pip download`` into the
user's cache folder (``seqlab.data.corpora.pypi_sdist``) and the two files are
read from it in memory, never extracted to disk.
"""

from __future__ import annotations

from pathlib import Path

from seqlab.data.corpora.pypi_sdist import ArchiveCaps, fetch_sdist, read_members
from seqlab.data.corpora.ts_format import TsCases, parse_ts
from seqlab.inputs import InputLimits, decode_text, read_bytes

PACKAGE = "sktime"
VERSION = "1.2.0"
# The sdist as PyPI serves it (checked after a download, so a swapped file is refused).
SHA256 = "641425178b3215a0a8dbcf4e6948a8b589e46def39c91989f71d9fa297bc3709"
FOLDER = f"{PACKAGE}-{VERSION}/sktime/datasets/data/JapaneseVowels/"
FILES = {"train": FOLDER + "JapaneseVowels_TRAIN.ts", "test": FOLDER + "JapaneseVowels_TEST.ts"}
LICENCE = (
    "CC BY 4.0 (UCI Machine Learning Repository, Japanese Vowels: M. Kudo, J. Toyama, M. Shimbo); "
    "the .ts files of the UEA & UCR time-series classification archive as sktime ships them (BSD-3-Clause)"
)
# Caps, a few times what 1.2.0 holds (36 MB sdist, 2,595 members, 70 MB unpacked, 0.65 MB the larger file).
_CAPS = ArchiveCaps(members=10_000, member_bytes=8 << 20, unpacked_bytes=256 << 20)
_LIMITS = InputLimits(max_bytes=128 << 20, max_chars=_CAPS.member_bytes)


def fetch_sktime() -> Path:
    """The cached sdist, ``<cache>/japanese_vowels/sktime-1.2.0.tar.gz``, downloaded once when missing."""
    return fetch_sdist(PACKAGE, VERSION, SHA256, "japanese_vowels", "The Japanese vowels utterances (sktime sdist)")


def load_japanese_vowels(tarball: str | Path | None = None) -> dict[str, TsCases]:
    """The published ``"train"`` (270) and ``"test"`` (370) utterances, each in file order.

    Args:
        tarball: the sdist to read; ``None``: the cached one, fetched once by ``fetch_sktime``.
    """
    path = fetch_sktime() if tarball is None else Path(tarball)
    label = f"The sktime source distribution {path.name!r}"
    data = read_bytes(path, _LIMITS, what="sktime source distribution", raw=True)
    raw = read_members(data, tuple(FILES.values()), label, f"{PACKAGE}=={VERSION}", _CAPS)
    cases = {}
    for split, name in FILES.items():
        short = name.rsplit("/", 1)[-1]
        cases[split] = parse_ts(decode_text(raw[name], _LIMITS, what=short), f"{label}: {short}")
    if cases["train"].class_labels != cases["test"].class_labels:
        raise ValueError(f"{label}: the training and test files declare different classes; give the real sdist.")
    return cases
