"""A lesson, the registry of lessons in the lecture's order, and the presets the CLI can train."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from seqlab.lessons.claim import Claim, Measured
from seqlab.registry import Registry
from seqlab.training.presets import PRESETS, Preset

if TYPE_CHECKING:
    from seqlab.runs import Run


@dataclass(frozen=True)
class Lesson:
    topic: str  # the lecture's topic, as listed on the page ("LSTM gates")
    text: str  # a few sentences of markdown: the idea, and what the runs compare
    layers: tuple[str, ...]  # dotted paths of the classes whose `Equations:` are shown
    preset: Preset  # the runs; its name is the lesson's name (in URLs and the CLI)
    view: str  # the inspection view drawn on the finished runs (seqlab.app.lessons.lesson_views)
    notice: str  # "what to notice", markdown, without figures: those are the claims'
    seconds: float  # measured time for the whole preset on 2 CPU cores, SavedModel export included
    claims: tuple[Claim, ...] = ()  # what to notice that the runs' figures tell, measured on them

    @property
    def name(self) -> str:
        return self.preset.name

    def measured(self, runs: Sequence[Run]) -> list[Measured | str]:
        """Each claim checked on the lesson's finished ``runs``; for one that cannot be, why not."""
        found = []
        for claim in self.claims:
            try:
                found.append(claim.check(runs))
            except (ValueError, KeyError, OSError) as err:  # a run missing, or one without the figure: say so
                found.append(f"({claim.name}: not measured, {err})")
        return found

    def notice_from(self, runs: Sequence[Run]) -> str:
        """What to notice in these runs: the claims' sentences, their figures measured on ``runs``."""
        return " ".join(m if isinstance(m, str) else m.sentence for m in self.measured(runs))


LESSONS: Registry[Lesson] = Registry("lesson")


def register_lesson(lesson: Lesson) -> Lesson:
    """Register ``lesson``; ``all_presets`` then lists its preset, so the CLI lists and trains it by its name."""
    if lesson.name in PRESETS:
        raise ValueError(f"lesson {lesson.name!r} has the name of a preset; give it its own.")
    return LESSONS.register(lesson.name, lesson)


def all_presets() -> dict[str, Preset]:
    """The longer experiments, then every lesson's preset, by name."""
    return {**PRESETS, **{lesson.name: lesson.preset for lesson in LESSONS.list()}}


def get_preset(name: str) -> Preset:
    """The preset (a longer experiment or a lesson's) called ``name``."""
    presets = all_presets()
    if name not in presets:
        raise ValueError(f"Unknown preset {name!r}; valid presets: {', '.join(presets)}.")
    return presets[name]

