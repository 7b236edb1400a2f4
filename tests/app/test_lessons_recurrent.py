"""The recurrent and time-series lessons on the Lessons page: text, equations, plan, Run, and the view on tiny runs.

Each lesson's specs are trained here in tiny versions (one epoch, small data) and handed to the page as the
finished jobs of its Run button, so the page draws the lesson's view on real runs of the lesson's models.
"""

import dataclasses
import json

import pytest

from seqlab.app.lessons.lesson import layer_class
from seqlab.layers.docs import equations
from seqlab.lessons import LESSONS
from seqlab.models import get_architecture
from seqlab.runs import RunStore
from seqlab.training import run_experiment
from seqlab.training.jobs import Job, JobManager
from tests.app.conftest import MANAGER_KEY, texts

ADDING = ({"length_T": 12, "samples": 120}, {"units": 4})
# lesson -> (data options, model options) that shrink every run of it to a few seconds
TINY = {
    "markov-hmm": ({"characters": 3000, "lookback": 32, "stride": 32}, {"states": 3, "iterations": 2}),
    "narx-energy": ({}, {"units": 4}),
    "elman-vanishing": ADDING,
    "lstm-gates": ADDING,
    "gru-gates": ADDING,
    "esn-reservoir": ({"length": 600, "lookback": 30, "horizon": 5}, {"units": 20}),
    "bidirectional-dates": ({"samples": 100, "max_tokens": 56}, {"units": 4}),
}
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


def tiny(spec, name):
    """The spec in a tiny version: one epoch, small data, and the small options its architecture takes."""
    data_options, model_options = TINY[name]
    takes = get_architecture(spec.model).defaults
    return dataclasses.replace(
        spec, epochs=1, early_stopping=0, data_options={**spec.data_options, **data_options},
        model_options={**spec.model_options, **{k: v for k, v in model_options.items() if k in takes}},
    )


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """lesson name -> its tiny runs as finished jobs, trained once per module (on first use)."""
    store = RunStore(tmp_path_factory.mktemp("lesson_runs"))
    trained = {}

    def runs_of(name):
        if name not in trained:
            specs = [tiny(spec, name) for spec in LESSONS.get(name).preset.specs]
            trained[name] = [Job(spec, status="completed", run=run_experiment(spec, store=store)) for spec in specs]
        return trained[name]

    return runs_of


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


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in TINY])
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

