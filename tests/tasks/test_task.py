import pytest

from seqlab.tasks import get_task


def test_every_trainable_task_and_a_clear_refusal():
    assert {get_task(t).name for t in ("forecast", "regress", "classify", "label", "translate")} == {
        "forecast", "regress", "classify", "label", "translate"
    }
    assert get_task("label").sequence_outputs and not get_task("classify").sequence_outputs
    with pytest.raises(ValueError, match="trainable tasks: .*forecast"):
        get_task("summarise")
