"""Lessons: one per topic of the lecture, each a short preset, its equations, one inspection view and what to notice.

A ``Lesson`` names what the Lessons page shows, in this order: a few
sentences, the equations of its layers (rendered from their docstrings'
``Equations:`` sections, so the formula on screen is the one beside the
code), a ``Preset`` sized to finish in at most a minute on a 2-core CPU
(``seconds`` is the measured time), the one inspection view that makes the
point (``view``: a name in ``seqlab.app.lessons.lesson_views.LESSON_VIEWS``, drawn
on the lesson's finished runs) and what to notice in it.

The topic modules register their lessons in the lecture's order;
``LESSONS`` lists them in that order. ``all_presets`` lists the longer
experiments of ``seqlab.training.presets.PRESETS`` and each lesson's preset
(a lesson may not take a longer experiment's name), so the CLI lists and trains
both: ``python -m seqlab train --preset <lesson name>``.
"""

from seqlab.lessons.lesson import LESSONS, Lesson, all_presets, get_preset, register_lesson

# The topic modules register their lessons, in the lecture's order.
from seqlab.lessons import recurrent, language, state_space  # noqa: E402,F401  isort: skip

__all__ = ["LESSONS", "Lesson", "all_presets", "get_preset", "register_lesson"]
