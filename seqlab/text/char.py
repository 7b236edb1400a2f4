"""Character tokens: every character seen in training is a token, any other is [UNK]."""

from __future__ import annotations

from seqlab.text.tokenizer import UNK_ID, Tokenizer


class CharTokenizer(Tokenizer):
    """Characters as tokens (seed 003: the smallest vocabulary, the longest sequences).

    The vocabulary is the specials, then the training text's characters in code-point
    order. ``decode(encode(text)) == standardize(text)`` whenever every character was seen.

    Example:
        >>> tok = CharTokenizer().fit(["To be, or not to be"])
        >>> tok.decode(tok.encode("Not to be!"))
        'not to be[UNK]'
    """

    kind = "char"
    joiner = ""

    def _learn(self, texts: list[str]) -> list[str]:
        return sorted(set().union(*texts))

    def _ids(self, text: str) -> list[int]:
        index = self._index
        return [index.get(char, UNK_ID) for char in text]
