"""The ``text`` dataset: the user's own text file as language-model data.

Its options name the file (``path``, a local path read through ``seqlab.inputs``)
and pin it: ``sha256`` is the file's hash, checked at every load when given, so a
spec reproduces its run or says the file changed; ``file_name`` is the file's name
as the user gave it (an upload is stored under its hash, see ``store_user_text``).
"""

from __future__ import annotations

import io
import os

import pandas as pd

from seqlab.data.corpora import Corpus, read_user_text
from seqlab.data.corpora.user_text import LICENCE
from seqlab.data.pinned_file import FILE_DEFAULTS, check_pin, store_upload
from seqlab.data.registry import DatasetInfo, register
from seqlab.data.sequence_data import SequenceData
from seqlab.data.text_windows import TEXT_CHOICES, TEXT_DEFAULTS, TEXT_RANGES, text_data
from seqlab.inputs import Source, read_bytes


def store_user_text(source: Source, name: str, context_length: int | None = None) -> dict:
    """An upload checked by ``read_user_text``, kept in the cache folder under its hash; its data options.

    Stored so the text outlives the browser's rerun and the background training job.
    """
    data = read_bytes(source, what="text file", raw=True)
    named = io.BytesIO(data)
    named.name = os.path.basename(name) or "text"  # messages name the file as the user knows it
    read_user_text(named, context_length)  # the checks (limits, encoding, empty, too short) before keeping it
    return store_upload(data, named.name, ".txt")


def _corpus(path: str, sha256: str, file_name: str) -> Corpus:
    if not path:
        raise ValueError(
            "The text dataset needs a file: upload a .txt on the Train page, or give "
            "--dataset text:PATH on the command line."
        )
    check_pin(path, sha256, file_name or os.path.basename(path), "text file")
    corpus = read_user_text(path)
    label = file_name or corpus.title
    return Corpus(corpus.text, label, f"text file {label!r}" + (f", SHA-256 {sha256}" if sha256 else ""), LICENCE)


def user_text_frame(path: str = "", sha256: str = "", file_name: str = "") -> pd.DataFrame:
    """The file's name and length, for a preview."""
    corpus = _corpus(path, sha256, file_name)
    return pd.DataFrame({"file": [corpus.title], "characters": [corpus.characters]})


def load_user_text_data(path: str, sha256: str, file_name: str, **options) -> SequenceData:
    data = text_data("text", _corpus(path, sha256, file_name), **options)
    data.options.update(path=path, sha256=sha256, file_name=file_name)
    return data


register(
    DatasetInfo(
        name="text",
        title="Your own text file",
        task="language",
        description=(
            "A plain-text file you give (a .txt upload, or `--dataset text:PATH`), for language models: the "
            "first 90 % of its characters trains, the last 10 % is held out. The spec records the file's "
            "name and SHA-256, so a changed file is refused rather than silently trained on."
        ),
        source="your file, read through seqlab's input checks (size limit, encoding)",
        licence=LICENCE,
        frame=user_text_frame,
        load=load_user_text_data,
        defaults={**TEXT_DEFAULTS, **FILE_DEFAULTS},
        ranges=TEXT_RANGES,
        choices=TEXT_CHOICES,
    )
)
