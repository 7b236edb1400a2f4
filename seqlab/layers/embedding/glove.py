"""Reading given embedding vectors (the notes' encoding B) from a GloVe-format text file.

The format: one token per line followed by its r values, separated by single
spaces, no header line (``the 0.418 0.24968 -0.41242 ...``). The file goes through
``seqlab.inputs`` like every file a user gives (limits, encodings, local paths only);
a file over the upload limit is refused, so keep only the lines of your vocabulary
(or pass larger ``limits``).

Vocabulary tokens the file lacks (always the padding and unknown tokens) get a
vector by the ``missing`` policy, and ``GloveVectors.note`` says how many did:

- ``"zeros"`` (default, as in the Keras guide to pre-trained embeddings): zero vectors;
- ``"random"``: normal vectors with the spread of the file's values, so the missing
  tokens stay distinct;
- ``"refuse"``: a ValueError listing them.

A file sharing no token with the vocabulary is refused under every policy: it is
the wrong file, or its tokens were standardised differently (GloVe is lowercase).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from seqlab.inputs import InputLimits, Source, read_text

MISSING = ("zeros", "random", "refuse")
_SHOWN = 10  # tokens named in a message
_FORMAT = "give a GloVe-format file, one token and its values per line, separated by spaces."


@dataclass(frozen=True)
class GloveVectors:
    """Vectors for a vocabulary, read from a GloVe-format file.

    Attributes:
        vectors: float32 array of shape (len(vocabulary), r); row i belongs to vocabulary[i].
        missing_tokens: the vocabulary tokens the file lacks, in id order.
        note: what the missing policy did, for the user (None when nothing was missing).
    """

    vectors: np.ndarray
    missing_tokens: tuple[str, ...]
    note: str | None


def read_glove(
    source: Source,
    vocabulary: Sequence[str],
    missing: str = "zeros",
    seed: int = 0,
    limits: InputLimits | None = None,
) -> GloveVectors:
    """The vectors of ``vocabulary``'s tokens from a GloVe-format file (module docstring).

    Args:
        source: a local path, an uploaded file or bytes (see ``seqlab.inputs.read_bytes``).
        vocabulary: the tokens in id order, e.g. a tokeniser's ``vocab``.
        missing: what tokens absent from the file get: ``"zeros"``, ``"random"`` or ``"refuse"``.
        seed: seed of the ``"random"`` vectors.
        limits: the limits to enforce (``None``: the server's upload limits).

    Raises:
        ValueError: lines of different lengths, a value that is not a finite
            number, a token listed twice, no vocabulary token found, a token
            missing under ``"refuse"``, or a bad vocabulary.
    """
    if missing not in MISSING:
        raise ValueError(f"Argument `missing` must be one of {MISSING}. Received: missing={missing!r}")
    ids = _vocabulary_ids(vocabulary)
    name = repr(_name(source))
    label = f"Embedding file {name}"
    found = _parse(read_text(source, limits, what="embedding file"), ids, label)
    r = next(iter(found.values())).shape[0]
    lacking = tuple(token for token in vocabulary if token not in found)
    if missing == "refuse" and lacking:
        raise ValueError(
            f"{label} lacks {len(lacking):,} token(s) of the vocabulary ({_listed(lacking)}): add them to the "
            "file, or choose missing='zeros' or 'random'."
        )
    vectors = np.zeros((len(vocabulary), r), dtype="float32")
    for token, vector in found.items():
        vectors[ids[token]] = vector
    if lacking and missing == "random":
        spread = float(np.std(np.stack(list(found.values()))))
        rows = [ids[token] for token in lacking]
        vectors[rows] = np.random.default_rng(seed).normal(0.0, spread, (len(rows), r))
    note = None
    if lacking:
        note = (
            f"{len(lacking):,} of {len(vocabulary):,} vocabulary tokens are not in {name} and got "
            f"{'zero' if missing == 'zeros' else 'random'} vectors: {_listed(lacking)}."
        )
    return GloveVectors(vectors=vectors, missing_tokens=lacking, note=note)


def _name(source: Source) -> str:
    """The file's name as the user gave it."""
    if isinstance(source, (str, os.PathLike)):
        return os.fsdecode(os.fspath(source))
    return str(getattr(source, "name", None) or "data")


def _vocabulary_ids(vocabulary: Sequence[str]) -> dict[str, int]:
    tokens = list(vocabulary) if not isinstance(vocabulary, str) else None
    if not tokens or not all(isinstance(token, str) and token for token in tokens):
        raise ValueError("The vocabulary must be a non-empty list of non-empty token strings, in id order.")
    ids = {}
    for i, token in enumerate(tokens):
        if token in ids:
            raise ValueError(f"The vocabulary lists {token!r} twice (ids {ids[token]} and {i}): give each token once.")
        ids[token] = i
    return ids


def _parse(text: str, ids: dict[str, int], label: str) -> dict[str, np.ndarray]:
    """The vectors of the vocabulary's tokens; every line is checked, used or not."""
    found, seen, width, first = {}, {}, None, None
    for number, line in enumerate(text.split("\n"), start=1):  # not splitlines(): tokens may hold \x85 or \u2028
        fields = line.rstrip().split(" ")
        if fields == [""]:
            continue
        token, values = fields[0], fields[1:]
        if width is None:
            width, first = len(values), (number, fields)
            if width == 0:
                raise ValueError(f"{label}, line {number}, holds a token without values: {_FORMAT}")
        elif len(values) != width:
            raise ValueError(
                f"{label}, line {number}, has {len(values)} values where line {first[0]} has {width}: "
                f"every vector must have the same dimension.{_header_hint(first[1])}"
            )
        if token in seen:
            raise ValueError(
                f"{label} lists the token {token!r} twice (lines {seen[token]} and {number}): keep one of them."
            )
        seen[token] = number
        vector = _numbers(values, label, number)
        if token in ids:
            found[token] = vector
    if width is None:
        raise ValueError(f"{label} holds no vectors: {_FORMAT}")
    if not found:
        raise ValueError(
            f"{label} shares no token with the vocabulary: check it is the right file and that both use the "
            "same standardisation (GloVe's tokens are lowercase)."
        )
    return found


def _numbers(values: list[str], label: str, number: int) -> np.ndarray:
    try:
        vector = np.array(values, dtype="float32")
    except ValueError:
        bad = next(v for v in values if not _is_number(v))
        raise ValueError(f"{label}, line {number}, has {bad[:30]!r}, which is not a number: {_FORMAT}") from None
    if not np.isfinite(vector).all():
        raise ValueError(f"{label}, line {number}, has a value that is not finite (nan or inf): fix that line.")
    return vector


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def _header_hint(fields: list[str]) -> str:
    """A word2vec text file starts with "count dimension": say so when the first line looks like that."""
    if len(fields) == 2 and all(field.isdecimal() for field in fields):
        return " The first line looks like a word2vec header: remove it."
    return ""


def _listed(tokens: Sequence[str]) -> str:
    shown = ", ".join(repr(token) for token in tokens[:_SHOWN])
    return shown + (f" and {len(tokens) - _SHOWN:,} more" if len(tokens) > _SHOWN else "")
