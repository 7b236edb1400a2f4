"""Per-task views are looked up by the run's task: every trainable task has each, others get the fallback."""

import pytest

from seqlab.app import inspect_view, live, results  # noqa: F401  importing them registers their views
from seqlab.app.task_views import OUTCOMES, OUTPUT_TEXT, PLAN_TEXT, PREDICTIONS, SERVING, is_series, view_of
from seqlab.tasks import TASK_KINDS


@pytest.mark.parametrize("registry", [PREDICTIONS, SERVING, OUTCOMES, OUTPUT_TEXT, PLAN_TEXT])
def test_every_trainable_task_has_its_views(registry):
    # Inspect traces float windows only: a language run's token ids have no outcome view there yet.
    untraced = {"language"} if registry is OUTCOMES else set()
    assert set(TASK_KINDS) - untraced <= set(registry)


def test_an_unknown_task_gets_the_fallback_and_is_not_a_series():
    fallback = object()
    assert view_of(PREDICTIONS, "translate", fallback) is fallback
    assert not is_series("translate") and not is_series("language") and is_series("forecast")
