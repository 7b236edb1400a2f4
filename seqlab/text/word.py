"""Word tokens: the most frequent words of the training text, the rest [UNK]."""

from __future__ import annotations

import collections
import re

from seqlab.checks import check_int
from seqlab.text.standardize import PUNCTUATION, WHITESPACE, char_class
from seqlab.text.tokenizer import UNK_ID, Tokenizer

# A word is a run of characters that are neither whitespace nor punctuation; each
# punctuation mark is a token of its own ("king," -> "king", ","). Literal classes
# only, so RE2 (in the SavedModel) cuts the same way.
WORD_PATTERN = f"{char_class(PUNCTUATION)}|{char_class(PUNCTUATION + WHITESPACE, negate=True)}+"


def split_words(text: str) -> list[str]:
    """The words and punctuation marks of a standardised text, whitespace dropped."""
    return re.findall(WORD_PATTERN, text)


class WordTokenizer(Tokenizer):
    """Words as tokens (seed 003: "straightforward vocabulary construction").

    Args:
        vocab_size: at most this many tokens, specials included; the most frequent
            words are kept (ties in alphabetical order). A training text with fewer
            distinct words gives a smaller vocabulary and a ``note`` saying so.
        min_count: words seen fewer times in training are [UNK].
        standardize, specials: see ``Tokenizer``.

    ``decode`` joins tokens with one space, so it returns the text up to unknown
    words and whitespace.

    Example:
        >>> tok = WordTokenizer(vocab_size=100).fit(["the cat sat on the mat."])
        >>> tok.decode(tok.encode("The dog sat."))
        'the [UNK] sat .'
    """

    kind = "word"
    joiner = " "

    def __init__(self, vocab_size: int = 10_000, min_count: int = 1, standardize=None, specials=()):
        super().__init__(standardize, specials)
        self.vocab_size_limit = check_int("vocab_size", vocab_size, minimum=len(self.specials) + 1)
        self.min_count = check_int("min_count", min_count, minimum=1)

    def options(self) -> dict:
        return {"vocab_size": self.vocab_size_limit, "min_count": self.min_count}

    def _learn(self, texts: list[str]) -> list[str]:
        counts = collections.Counter(word for text in texts for word in split_words(text))
        frequent = sorted((w for w, n in counts.items() if n >= self.min_count), key=lambda w: (-counts[w], w))
        if not frequent:
            raise ValueError(
                f"No word of the training text is seen min_count={self.min_count} times: lower min_count "
                "or give more text."
            )
        room = self.vocab_size_limit - len(self.specials)
        if len(frequent) < room:
            self.note = (
                f"vocab_size {self.vocab_size_limit:,} asked, but the training text has only {len(frequent):,} "
                f"distinct words seen at least {self.min_count} time(s): the vocabulary holds "
                f"{len(frequent) + len(self.specials):,} tokens."
            )
        return frequent[:room]

    def _ids(self, text: str) -> list[int]:
        index = self._index
        return [index.get(word, UNK_ID) for word in split_words(text)]
