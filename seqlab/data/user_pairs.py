"""The ``pairs`` dataset: the user's own tab-separated file of translation pairs.

One pair a line, ``source<TAB>target``; further tab-separated columns (the
attribution of a Tatoeba / Anki export) are left out and counted; blank lines
are skipped. A line without a tab or with an empty side (blank, or of
zero-width characters only) refuses the file, naming the lines, rather than
losing them silently. The file is read through ``seqlab.inputs`` (size limit,
encodings, local paths only) and pinned by its hash like every user file
(``seqlab.data.pinned_file``); then the pairs go through
``seqlab.data.text_pairs`` like every pairs dataset.
"""

from __future__ import annotations

import io
import os

import pandas as pd

from seqlab.data.pinned_file import FILE_DEFAULTS, check_pin, store_upload
from seqlab.data.registry import DatasetInfo, register
from seqlab.data.sequence_data import SequenceData
from seqlab.data.text_pairs import PAIR_TEXT_CHOICES, PAIR_TEXT_DEFAULTS, PAIR_TEXT_RANGES, pair_data
from seqlab.inputs import Source, read_bytes, read_text
from seqlab.text.visible import has_visible

NAME = "pairs"
WHAT = "pairs file"
LICENCE = "yours: the file is read on this machine and never leaves it"
SHOWN = 10  # line numbers named in a message


def parse_pairs(text: str, label: str) -> tuple[pd.DataFrame, list[str]]:
    """Columns ``line``, ``source``, ``target`` of a pairs file's ``text``; and the notes (module docstring)."""
    rows, no_tab, empty, extra = [], [], [], 0
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        if "\t" not in line:
            no_tab.append(number)
            continue
        source, target, *rest = line.split("\t")
        extra += bool(rest)
        if not has_visible(source) or not has_visible(target):  # blank, or zero-width characters only
            empty.append(number)
            continue
        rows.append((number, source.strip(), target.strip()))
    problems = [
        f"{_lines(no_tab)} {'has' if len(no_tab) == 1 else 'have'} no tab between source and target" if no_tab else "",
        f"{_lines(empty)} {'has' if len(empty) == 1 else 'have'} an empty source or target" if empty else "",
    ]  # fmt: skip
    problems = [p for p in problems if p]
    if problems:
        raise ValueError(
            f"{WHAT.capitalize()} {label!r}: {'; '.join(problems)}. Write one pair a line as source, a tab, "
            "then target, with text on both sides."
        )
    if not rows:
        raise ValueError(
            f"{WHAT.capitalize()} {label!r} holds no pairs: write one pair a line as source, a tab, then target."
        )
    notes = [f"Left out the third and later tab-separated columns of {extra:,} lines."] if extra else []
    return pd.DataFrame(rows, columns=["line", "source", "target"]), notes


def _lines(numbers: list[int]) -> str:
    """``line 3`` or ``lines 3, 8, ... (12 lines)``: at most ``SHOWN`` numbers."""
    if len(numbers) == 1:
        return f"line {numbers[0]}"
    shown = ", ".join(str(n) for n in numbers[:SHOWN])
    return f"lines {shown}" + (f", ... ({len(numbers):,} lines)" if len(numbers) > SHOWN else "")


def read_pairs(path: str, sha256: str = "", file_name: str = "") -> tuple[pd.DataFrame, list[str]]:
    """The pairs of the user's file at ``path`` after its pin is checked; and the notes."""
    if not path:
        raise ValueError(
            f"The {NAME} dataset needs a file: upload a tab-separated .tsv or .txt on the Data or Train page, or "
            f"give --dataset {NAME}:PATH on the command line."
        )
    label = file_name or os.path.basename(path)
    check_pin(path, sha256, label, WHAT)
    return _parsed(read_bytes(path, what=WHAT, raw=True), label)


def store_pairs(source: Source, name: str) -> dict:
    """An upload checked by ``parse_pairs``, kept in the cache folder under its hash: its data options."""
    data = read_bytes(source, what=WHAT, raw=True)
    label = os.path.basename(name) or "pairs.tsv"
    _parsed(data, label)  # the checks (limits, encoding, tabs, empty sides) before keeping it
    return store_upload(data, label, ".tsv")


def _parsed(data: bytes, label: str) -> tuple[pd.DataFrame, list[str]]:
    """The file's ``data`` decoded by ``seqlab.inputs`` (messages name it ``label``), then parsed."""
    named = io.BytesIO(data)
    named.name = label  # messages name the file as the user knows it, never the cache path
    return parse_pairs(read_text(named, what=WHAT), label)


def pairs_frame(path: str = "", sha256: str = "", file_name: str = "") -> pd.DataFrame:
    """The pairs as read, for a preview."""
    return read_pairs(path, sha256, file_name)[0]


def load_pairs(path: str, sha256: str, file_name: str, **options) -> SequenceData:
    frame, notes = read_pairs(path, sha256, file_name)
    options = {"path": path, "sha256": sha256, "file_name": file_name, **options}
    return pair_data(NAME, frame["source"], frame["target"], options, notes, columns={"line": frame["line"]})


register(
    DatasetInfo(
        name=NAME,
        title="Your own translation pairs (tab-separated)",
        task="translate",
        description=(
            "Pairs from your own text file, one a line: the source, a tab, the target (an upload, or `--dataset "
            "pairs:PATH`); further columns, like a Tatoeba export's attribution, are left out. A line without a "
            "tab or with an empty side is refused with its line number. Character tokens by default; a random "
            "80 / 10 / 10 % split by seed; the tokenisers are fitted on the training pairs only. The spec records "
            "the file's name and SHA-256, so a changed file is refused rather than silently trained on."
        ),
        source="your file, read through seqlab's input checks (size limit, encoding)",
        licence=LICENCE,
        frame=pairs_frame,
        load=load_pairs,
        defaults={**PAIR_TEXT_DEFAULTS, **FILE_DEFAULTS},
        ranges=PAIR_TEXT_RANGES,
        choices=PAIR_TEXT_CHOICES,
    )
)
