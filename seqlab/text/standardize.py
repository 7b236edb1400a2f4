r"""Standardisation before tokenisation (seed 003: "lowercasing, punctuation stripping").

The same steps run in Python (``Standardize.__call__``) and inside a SavedModel
(``seqlab.text.layers``), so each step is a regular expression made of literal
characters only: ``\s``, ``\w`` and ``\p{..}`` mean different things in Python's
``re`` and in TensorFlow's RE2, a literal character class means the same in both.
"""

from __future__ import annotations

import re
import string
from dataclasses import asdict, dataclass

from seqlab.checks import check_bool

# ASCII punctuation (Keras TextVectorization's set) and the typographic marks of
# English prose: curly quotes, dashes, ellipsis, guillemets, inverted marks.
PUNCTUATION = string.punctuation + "\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u00ab\u00bb\u00a1\u00bf"
# What ``tf.strings.split`` splits on (ASCII whitespace); a no-break space is a character.
WHITESPACE = " \t\n\r\x0b\x0c"


def char_class(chars: str, negate: bool = False) -> str:
    """A regex class of exactly ``chars``, read the same by Python ``re`` and RE2."""
    escaped = "".join("\\" + c if c in "\\]^-[" else c for c in chars)
    return f"[{'^' if negate else ''}{escaped}]"


# Collapsing whitespace, step by step: line breaks become "\n", runs of spaces and
# tabs one space, spaces around a line break vanish, and at most one blank line stays.
_COLLAPSE = (
    ("\r\n", "\n"),
    (char_class("\r\x0b\x0c"), "\n"),
    (char_class(" \t\u00a0") + "+", " "),
    (" ?\n ?", "\n"),
    ("\n\n\n+", "\n\n"),
)
_STRIP_PUNCTUATION = ((char_class(PUNCTUATION), ""),)
# After collapsing, only these can remain at either end of the text.
COLLAPSED_ENDS = " \n"


@dataclass(frozen=True)
class Standardize:
    """Text standardisation applied before every tokeniser, recorded in the spec.

    Attributes:
        lowercase: map letters to lower case (Unicode rules; "ΣΑΣ" -> "σας").
        strip_punctuation: delete the characters of ``PUNCTUATION``.
        collapse_whitespace: turn "\\r\\n", "\\r", vertical tab and form feed into
            "\\n", runs of spaces/tabs/no-break spaces into one space, drop spaces
            next to a line break, keep at most one blank line, and strip both ends.

    Example:
        >>> Standardize(strip_punctuation=True)("  Hello,   World!\\n")
        'hello world'
    """

    lowercase: bool = True
    strip_punctuation: bool = False
    collapse_whitespace: bool = True

    def __post_init__(self):
        for name in ("lowercase", "strip_punctuation", "collapse_whitespace"):
            check_bool(name, getattr(self, name))

    def rules(self) -> tuple[tuple[str, str], ...]:
        """The regex replacements after lowercasing, in order, as ``(pattern, literal replacement)``."""
        return (_STRIP_PUNCTUATION if self.strip_punctuation else ()) + (
            _COLLAPSE if self.collapse_whitespace else ()
        )

    def __call__(self, text: str) -> str:
        if not isinstance(text, str):
            raise TypeError(f"Standardize takes a str, got {type(text).__name__}.")
        if self.lowercase:
            text = text.lower()
        for pattern, replacement in self.rules():
            text = re.sub(pattern, replacement, text)  # replacements hold no backslash: literal in re and RE2
        return text.strip(COLLAPSED_ENDS) if self.collapse_whitespace else text

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Standardize":
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(
                f"Unknown standardisation option(s) {unknown}: valid ones are {sorted(cls.__dataclass_fields__)}."
            )
        return cls(**data)
