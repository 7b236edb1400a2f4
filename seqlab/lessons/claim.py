"""A claim of a lesson's "what to notice": a sentence whose figures are measured on the lesson's finished runs.

A figure typed into a notice is true of one run on one machine and goes
stale with the next change of code, data or seed. So a lesson's ``notice``
holds only what needs no figure, and each of its ``claims`` measures its
figures on the lesson's finished runs (``measure``), says them in words that
follow them (``say``: the same claim reads differently when the runs do not
show the lesson's point, so the page never states what the runs contradict)
and tells whether they show that point (``holds``, what
``bench/lesson_notices.py`` reports on freshly trained runs).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from seqlab.runs import Run

Figures = Mapping[str, object]


@dataclass(frozen=True)
class Measured:
    """A claim checked on runs: its figures, whether they show the lesson's point, and the sentence they make."""

    claim: str
    figures: Figures
    holds: bool
    sentence: str


@dataclass(frozen=True)
class Claim:
    name: str  # what it checks, for the bench's report ("the cell state is written once and carried")
    measure: Callable[[Sequence[Run]], Figures]  # the lesson's finished runs, in the preset's order -> figures
    say: Callable[[Figures], str]  # the sentence, worded by the figures
    holds: Callable[[Figures], bool]  # whether the figures show the lesson's point

    def check(self, runs: Sequence[Run]) -> Measured:
        """Measure the claim on ``runs``; ``ValueError`` names a run it needs that is missing."""
        figures = self.measure(runs)
        return Measured(self.name, figures, bool(self.holds(figures)), self.say(figures))
