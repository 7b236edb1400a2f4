"""The state-space lesson on the Lessons page: its parts, and its view on tiny runs of its two models."""

import json

from seqlab.lessons import LESSONS
from tests.app.conftest import texts
from tests.app.test_lessons_recurrent import open_lesson

NAME = "state-space-memory"


def test_the_lesson_shows_both_runs_errors_and_the_s4ds_state(open_page, runs_dir, finished):
    lesson = LESSONS.get(NAME)
    at = open_lesson(open_page, runs_dir, NAME, finished(NAME))
    assert not at.exception and not at.error
    assert lesson.notice in texts(at.markdown)
    assert [spec.model for spec in lesson.preset.specs] == ["s4d", "lstm"]
    [errors] = [frame.value for frame in at.dataframe if "test MSE" in frame.value.columns]
    assert len(errors) == 2 and list(errors.columns) == ["test MSE", "mean guess's MSE"]
    titles = [json.loads(chart.proto.spec)["layout"].get("title", {}).get("text", "")
              for chart in at.get("plotly_chart")]
    assert any(title.startswith("|xₜ| of s4d_1, channel") for title in titles), titles
    assert "The marked values are at steps" in texts(at.caption)


def test_the_two_models_have_about_equal_weights():
    from seqlab.data import load_dataset
    from seqlab.models import build_model

    counts = []
    for spec in LESSONS.get(NAME).preset.specs:
        data = load_dataset(spec.dataset, **{**spec.data_options, "samples": 50})
        counts.append(build_model(spec.model, data, spec.model_options).count_params())
    assert counts == [4201, 4513]  # the lesson's text quotes them
