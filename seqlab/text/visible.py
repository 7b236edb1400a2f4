"""Whether a text shows anything at all.

``str.strip`` removes whitespace only: a text of zero-width spaces (U+200B),
byte-order marks or Hangul fillers strips to itself yet draws nothing, and a
pair of such texts would train a model on nothing.
"""

import unicodedata

# Characters that draw nothing but that Unicode files neither as whitespace nor as format or control characters.
FILLERS = frozenset("\u115f\u1160\u2800\u3164\uffa0")
INVISIBLE = ("Cc", "Cf", "Zs", "Zl", "Zp")  # control, format (zero-width, BOM), separators


def has_visible(text: str) -> bool:
    """Whether ``text`` has one character that draws something."""
    return any(c not in FILLERS and not c.isspace() and unicodedata.category(c) not in INVISIBLE for c in text)
