"""The inspection view of each lesson: drawn on the lesson's finished runs, under their comparison.

A view is registered by name with ``@lesson_view("name")`` beside its code;
a ``Lesson`` names its view (``Lesson.view``). The signature:

    (runs, key) -> None

``runs`` are the lesson's finished runs in the preset's order (a run that
failed or was deleted is left out; the view says what it needs when one is
missing); ``key`` prefixes every widget key. A view reuses the dashboard's
own inspection code (traces, attention maps, embeddings ...) rather than
drawing its own copy.
"""

from __future__ import annotations

from typing import Callable

from seqlab.app.results import differing_options, model_title
from seqlab.registry import Registry

LESSON_VIEWS: Registry[Callable] = Registry("lesson view")


def lesson_view(name: str) -> Callable[[Callable], Callable]:
    """Decorator: register the function as the lesson view called ``name``."""

    def register(view: Callable) -> Callable:
        return LESSON_VIEWS.register(name, view)

    return register


def model_label(model: str, options: dict, others: list[dict]) -> str:
    """The model's title; beside runs of the same model (their ``options``), also the options it differs in."""
    extra = differing_options(options, others)
    return f"{model_title(model)}{f' · {extra}' if extra else ''}"


# The topic modules register their views (after LESSON_VIEWS exists: they import it).
from seqlab.app import lesson_views_recurrent, lesson_views_language  # noqa: E402,F401
