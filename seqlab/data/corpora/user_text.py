"""A text the user gives (a ``.txt`` upload, ``--dataset text:PATH``), through the shared input gate."""

from __future__ import annotations

import os

from seqlab.checks import check_int
from seqlab.data.corpora.corpus import Corpus
from seqlab.inputs import InputLimits, Source, read_text

LICENCE = "the user's own text"


def read_user_text(source: Source, context_length: int | None = None, limits: InputLimits | None = None) -> Corpus:
    """A user's text as a ``Corpus``, or a ``ValueError`` that says what to fix.

    ``seqlab.inputs.read_text`` applies the server's limits, local paths only, the
    encodings it accepts, and refuses empty or whitespace-only text.

    Args:
        source: a local path, an uploaded file or bytes (see ``seqlab.inputs.read_bytes``).
        context_length: the characters T a model reads before predicting the next one;
            the text must hold at least T + 1 of them to make one training example.
        limits: the limits to enforce (``None``: the server's upload limits).
    """
    name = _name(source)
    text = read_text(source, limits, what="text file")
    if context_length is not None:
        check_int("context_length", context_length, minimum=1)
        if len(text) <= context_length:
            raise ValueError(
                f"Text file {name!r} has {len(text):,} characters, too few for a context of {context_length:,}: "
                f"give a text of at least {context_length + 1:,} characters or choose a shorter context."
            )
    return Corpus(text=text, title=name, source=f"text file {name!r}", licence=LICENCE)


def _name(source: Source) -> str:
    """The file's name as the user knows it (never a resolved server path)."""
    if isinstance(source, (str, os.PathLike)):
        return os.path.basename(os.fsdecode(os.fspath(source))) or "text"
    return os.path.basename(str(getattr(source, "name", "") or "")) or "text"
