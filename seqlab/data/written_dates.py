"""The ``written_dates`` dataset: dates written out in words, every character tagged with its field.

A labelling task with real alignment (seed 001's many-to-many: one tag per
token). Each text is a random date between 1900 and 2099 in one of a few
English formats, its numbers spelt by ``num2words``::

    text  the twenty-third of march two thousand and five
    tags  ooooddddddddddddoooommmmmoyyyyyyyyyyyyyyyyyyyyy

    text  march twenty-three, nineteen ninety-nine
    tags  mmmmmoddddddddddddooyyyyyyyyyyyyyyyyyyyy

    text  march twenty twenty-three
    tags  mmmmmoyyyyyyyyyyyyyyyyyyy

The tokens are characters (a ``CharTokenizer`` fitted on the training texts)
and the tag of each is ``day``, ``month``, ``year`` or ``other`` (the filler:
"the", "of", commas, the spaces between fields). The formats mix the orders
day-month-year, month-day-year and year first, and a day may be an ordinal
("twenty-third") or a number ("twenty-three"), so the field of a number's first
letters is often only told by what comes after: "twenty" after "march " is the
day in "march twenty-three, ..." but the year in "march twenty twenty-three". A
forward-only reader must commit before it sees that; a bidirectional one has
read the rest (seed 004: a bidirectional RNN reads both ways).

Samples are drawn independently from ``seed``: the first train, the next
validate, the last test. Texts are padded to ``max_tokens`` characters at the
end; the padding is tagged ``other`` and masked, so it never counts.
"""

from __future__ import annotations

import calendar
import datetime
import string

import numpy as np
import pandas as pd

from seqlab.checks import Range, check_int
from seqlab.data.random_dates import WritingCost, random_dates
from seqlab.data.registry import DatasetInfo, register
from seqlab.data.sequence_data import SequenceData, Split
from seqlab.data.text_windows import TEXT_RANGES
from seqlab.data.windowing import split_points
from seqlab.limits import check_data_size
from seqlab.text import CharTokenizer, Standardize

TAGS = ("other", "day", "month", "year")  # class ids; padding is tagged 0 (other), masked
# {day}: an ordinal ("twenty-third"); {number}: the day as a number ("twenty-three").
FORMATS = (
    "the {day} of {month} {year}",
    "{day} {month} {year}",
    "{month} the {day}, {year}",
    "{month} {number}, {year}",
    "{month} {year}",
    "the {day} of {month}",
    "{year}, the {day} of {month}",
)
FIRST, LAST = datetime.date(1900, 1, 1), datetime.date(2099, 12, 31)
# The texts are generated clean and lower case: standardising must change no character, or the tags would shift.
AS_GENERATED = Standardize(lowercase=False, strip_punctuation=False, collapse_whitespace=False)
DEFAULTS = {
    "samples": 3000,
    "max_tokens": 64,  # T in characters: the longest text has 55 ("two thousand and seven, the twenty-seventh of ...")
    "embedding_dim": 16,
    "val_fraction": 0.1,
    "test_fraction": 0.1,
    "seed": 0,
}
COST = WritingCost(seconds=75e-6, bytes=1800)  # spelt by num2words, tagged, tokenised: 50-150 us, 1.7 KB measured


def date_fields(date: datetime.date) -> dict[str, str]:
    """The date's fields in words (``num2words``; imported here so listing datasets does not import it)."""
    from num2words import num2words

    return {
        "day": num2words(date.day, to="ordinal"),
        "number": num2words(date.day),
        "month": calendar.month_name[date.month].lower(),
        "year": num2words(date.year, to="year"),
    }


def tagged_text(pattern: str, fields: dict[str, str]) -> tuple[str, str]:
    """The text of ``pattern`` filled with ``fields``, and one tag letter per character (``o``, ``d``, ``m``, ``y``)."""
    text, tags = [], []
    for literal, field, _, _ in string.Formatter().parse(pattern):
        text.append(literal)
        tags.append("o" * len(literal))
        if field is not None:
            tag = "day" if field == "number" else field
            text.append(fields[field])
            tags.append(tag[0] * len(fields[field]))
    return "".join(text), "".join(tags)


def written_dates_frame(samples: int = DEFAULTS["samples"], seed: int = DEFAULTS["seed"]) -> pd.DataFrame:
    """One row per sample: ``date`` (ISO), ``text``, ``tags`` (one letter per character), ``format``."""
    check_int("samples", samples, 10)
    rows = []
    for date, f in random_dates(samples, seed, FIRST, LAST, len(FORMATS), COST):
        text, tags = tagged_text(FORMATS[f], date_fields(date))
        rows.append((date.isoformat(), text, tags, FORMATS[f]))
    return pd.DataFrame(rows, columns=["date", "text", "tags", "format"])


def load_written_dates(
    samples: int, max_tokens: int, embedding_dim: int, val_fraction: float, test_fraction: float, seed: int
) -> SequenceData:
    """``SequenceData`` of task ``label``: ``x`` (N, T) character ids, ``y`` (N, T) tag ids and ``mask``."""
    check_data_size(samples, max_tokens, 1, outputs=max_tokens, what="the texts")  # before any is written
    frame = written_dates_frame(samples, seed)
    n = len(frame)
    val_start, test_start = split_points(n, val_fraction, test_fraction)
    if min(val_start, test_start - val_start, n - test_start) < 1:
        raise ValueError(
            f"{n:,} samples with val_fraction {val_fraction:g} and test_fraction {test_fraction:g} leave a split "
            "empty: raise samples or the fractions."
        )
    texts = frame["text"].tolist()
    tokenizer = CharTokenizer(standardize=AS_GENERATED).fit(texts[:val_start])
    x, mask = tokenizer.pad_and_mask([tokenizer.encode(t) for t in texts], max_tokens)
    letters = {tag[0]: i for i, tag in enumerate(TAGS)}
    y, _ = tokenizer.pad_and_mask([[letters[c] for c in tags] for tags in frame["tags"]], max_tokens)
    notes = []
    long = int((frame["text"].str.len() > max_tokens).sum())
    if long:
        notes.append(
            f"{long:,} of {n:,} texts are longer than max_tokens = {max_tokens:,} characters (the longest has "
            f"{frame['text'].str.len().max():,}) and were trimmed to their first {max_tokens:,}: raise max_tokens "
            "to keep them whole."
        )
    frame["split"] = np.repeat(["train", "val", "test"], [val_start, test_start - val_start, n - test_start])
    bounds = {"train": (0, val_start), "val": (val_start, test_start), "test": (test_start, n)}
    return SequenceData(
        name="written_dates",
        task="label",
        frame=frame,
        features=("text",),
        target="tag",
        units={},
        lookback=max_tokens,
        horizon=max_tokens,
        splits={
            split: Split(x=x[a:b], y=y[a:b], origin=np.arange(a, b), mask=mask[a:b]) for split, (a, b) in bounds.items()
        },
        options={
            "samples": samples, "max_tokens": max_tokens, "embedding_dim": embedding_dim,
            "val_fraction": val_fraction, "test_fraction": test_fraction, "seed": seed,
        },  # fmt: skip
        classes=TAGS,
        tokenizer=tokenizer,
        load_notes=tuple(notes),
    )


register(
    DatasetInfo(
        name="written_dates",
        title="Dates written in words (tag each character)",
        task="label",
        description=(
            "Dates between 1900 and 2099 written out in words in seven formats (\"the twenty-third of march "
            "two thousand and five\", \"march twenty-three, nineteen ninety-nine\", \"march twenty twenty-three\"): "
            "tag every character with the field it belongs to, day, month, year or other. The orders differ, so "
            "whether \"twenty\" starts the day or the year is often only told by what follows: a bidirectional "
            "model reads it, a forward-only one must guess. Character tokens; the first 80 % of the samples "
            "train, the next 10 % validate, the last 10 % test."
        ),
        source="generated by seqlab (seqlab.data.written_dates), numbers spelt by num2words 0.5.14",
        licence="public domain (generated); num2words is LGPL-2.1",
        frame=written_dates_frame,
        load=load_written_dates,
        defaults=dict(DEFAULTS),
        ranges={
            "max_tokens": Range(1, 100_000, limit="max_sequence_length"),
            "embedding_dim": TEXT_RANGES["embedding_dim"],
        },
    )
)
