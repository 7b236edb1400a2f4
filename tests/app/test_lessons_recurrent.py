"""The recurrent and time-series lessons on the Lessons page: text, equations, plan, Run, and the view on tiny runs.

Each lesson's tiny runs (``tests.lesson_runs``: one epoch, small data) are handed to the page as the finished jobs of
its Run button, so the page draws the lesson's view on real runs of the lesson's models.
"""

import json

import pytest

from seqlab.app.lessons.lesson import layer_class
from seqlab.layers.docs import equations
from seqlab.lessons import LESSONS
from seqlab.runs import RunStore
from seqlab.training.jobs import JobManager
from tests.app.conftest import MANAGER_KEY, texts
from tests.lesson_runs import RECURRENT

# lesson -> words in the titles of the view's charts
VIEW_CHARTS = {
    "markov-hmm": ["γₙ(k)", "Transition matrix A"],
    "narx-energy": ["forecast at midnight"],
    "elman-vanishing": ["Gradient through time"],
    "lstm-gates": ["Gates of", "Cell state"],
    "gru-gates": ["Gates of"],
    "esn-reservoir": ["Reservoir states", "forecast from one test window"],
    "bidirectional-dates": ["Forward state", "Backward state"],
}


def open_lesson(open_page, runs_dir, name, jobs):
    """The Lessons page on ``name``, its Run button's ``jobs`` finished."""
    at = open_page("pages/lessons.py")
    manager = JobManager(RunStore(runs_dir))
    manager.jobs.extend(jobs)
    at.session_state[MANAGER_KEY] = manager
    at.session_state[f"seqlab.lesson.{name}"] = [job.job_id for job in manager.jobs]
    at.selectbox(key="lessons.lesson").set_value(name).run()
    return at


SLOW = {"markov-hmm", "bidirectional-dates"}  # three language SavedModels; two text taggers: over 20 s


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in RECURRENT])
def test_the_lesson_shows_its_parts_and_its_view_draws_on_its_runs(name, finished, open_page, runs_dir):
    lesson = LESSONS.get(name)
    jobs = finished(name)
    assert all(job.run.status == "completed" for job in jobs)
    at = open_lesson(open_page, runs_dir, name, jobs)
    assert not at.exception and not at.error
    assert lesson.topic in texts(at.header)
    assert lesson.text in texts(at.markdown) and lesson.notice in texts(at.markdown)
    blocks = [block for path in lesson.layers for block in equations(layer_class(path))]
    assert [e.value.strip("$").strip() for e in at.latex][: len(blocks)] == blocks  # the docstrings' equations, in order
    assert len(at.dataframe[0].value) == len(lesson.preset.specs)  # the plan: one row per run
    assert not at.button(key="lessons.run").disabled
    assert f"about {lesson.seconds:.0f} s on 2 CPU cores" in texts(at.caption)
    assert "Inside the runs" in texts(at.subheader)
    charts = " ".join(json.loads(chart.proto.spec)["layout"]["title"]["text"] for chart in at.get("plotly_chart")
                      if "title" in json.loads(chart.proto.spec)["layout"])
    for words in VIEW_CHARTS[name]:
        assert words in charts, (words, charts)

