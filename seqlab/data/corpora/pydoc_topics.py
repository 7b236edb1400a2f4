"""Python's own help topics (``pydoc_data.topics``): a corpus every Python installation has."""

from __future__ import annotations

import platform

from seqlab.data.corpora.corpus import Corpus

LICENCE = "Python Software Foundation License (Python's documentation)"


def load_pydoc() -> Corpus:
    """The text of ``help()``'s topics (about 0.5 M characters), joined in the order of their names.

    The text changes with the Python version, which ``source`` records.
    """
    from pydoc_data.topics import topics  # imported here: a 0.5 MB module few callers need

    names = sorted(topics)
    return Corpus(
        text="\n\n\n".join(topics[name].strip() for name in names) + "\n",
        title="Python help topics",
        source=f"pydoc_data.topics of Python {platform.python_version()}",
        licence=LICENCE,
        parts=tuple(names),
    )
