"""A text corpus with where it came from, and the fixed character-level split."""

from __future__ import annotations

from dataclasses import dataclass

TRAIN_FRACTION = 0.9  # first 90 % trains, last 10 % validates: figures stay comparable across runs


@dataclass(frozen=True)
class Corpus:
    """A text and its provenance.

    Attributes:
        text: the whole text, works joined in a fixed order.
        title: what to call it on screen.
        source: where the text was read from (package and version, or file name).
        licence: the licence of the text.
        parts: names of the works or topics it joins, in order (empty for one file).
    """

    text: str
    title: str
    source: str
    licence: str
    parts: tuple[str, ...] = ()

    @property
    def characters(self) -> int:
        """Length of the text in characters."""
        return len(self.text)

    def split(self) -> tuple[str, str]:
        """``(train, validation)``: the first 90 % of the characters and the last 10 %.

        A cut by position, not at random: a language model is judged on text it
        has not seen, and the same cut on every run makes their curves comparable.
        """
        cut = int(len(self.text) * TRAIN_FRACTION)
        return self.text[:cut], self.text[cut:]
