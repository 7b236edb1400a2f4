"""Per-task views are looked up by the run's task: every trainable task has each, others get the fallback."""

import pytest

from seqlab.app.inspect.inspect_view import RESULT_VIEWS
from seqlab.app.task_views import (
    INSPECT_INPUTS,
    OUTCOMES,
    OUTPUT_TEXT,
    PLAN_TEXT,
    PREDICTIONS,
    SERVING,
    is_series,
    view_of,
)
from seqlab.tasks import TASK_KINDS


@pytest.mark.parametrize("registry", [PREDICTIONS, SERVING, OUTPUT_TEXT, PLAN_TEXT])
def test_every_trainable_task_has_its_views(registry):
    assert set(TASK_KINDS) <= set(registry)


def test_every_task_inspect_reads_has_an_outcome_and_translations_go_to_their_own_page():
    # Inspect traces one input sequence; an encoder-decoder reads two and is looked inside on Translate.
    read = {key.split(".")[0] for key in INSPECT_INPUTS}  # "classify.text" reads the classify task's text
    assert read <= set(OUTCOMES)
    assert set(TASK_KINDS) - read == {"translate"}


def test_every_traced_result_type_has_an_inspect_view():
    assert {"LayerTrace", "HMMTrace", "AttentionTrace"} <= set(RESULT_VIEWS)


def test_an_unknown_task_gets_the_fallback_and_is_not_a_series():
    fallback = object()
    assert view_of(PREDICTIONS, "summarise", fallback) is fallback
    assert not is_series("summarise") and not is_series("translate") and is_series("forecast")
