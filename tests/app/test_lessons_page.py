"""Lessons page: one lesson per topic; its runs queue together, their curves draw, the result compares them and the
lesson's view looks inside; the teacher's switches live in the link."""

import dataclasses
import json

import pytest

from seqlab.lessons import LESSONS
from seqlab.runs import RunStore
from seqlab.training import ExperimentSpec
from seqlab.training.presets import PRESETS, Preset
from tests.app.conftest import all_done, jobs, run_until, texts

TINY = dict(data_options={"length": 300, "lookback": 12, "horizon": 4}, model_options={"units": 4},
            epochs=2, batch_size=32)


@pytest.fixture
def tiny_lesson(monkeypatch):
    """A lesson of two tiny runs whose view (the gates of its recurrent run) draws on the GRU."""
    preset = Preset(
        name="tiny", title="Tiny lesson: MLP against GRU on a sine", description="Two tiny runs.",
        specs=(ExperimentSpec("sine", "mlp", **TINY), ExperimentSpec("sine", "gru", **TINY)),
    )
    lesson = dataclasses.replace(LESSONS.get("gru-gates"), topic="Tiny", preset=preset, seconds=7)
    monkeypatch.setitem(LESSONS._entries, "tiny", lesson)
    return lesson


def test_every_lesson_is_offered_in_the_lectures_order_and_the_longer_experiments_below(open_page):
    at = open_page("pages/lessons.py")
    assert not at.exception
    picker = at.selectbox(key="lessons.lesson")
    assert picker.options == [f"{i}. {LESSONS.get(name).topic}" for i, name in enumerate(LESSONS.names(), start=1)]
    assert picker.value == LESSONS.names()[0]
    longer = at.selectbox(key="lessons.preset")
    assert longer.options == [p.title for p in PRESETS.values()]
    plan = at.dataframe[1].value  # the first longer experiment's, under the lesson's own
    assert list(plan["model"]) == ["Elman RNN", "LSTM", "GRU"]  # the adding-problem experiment comes first
    assert "length_T=50" in plan["settings"].iloc[0]


def test_running_a_lesson_trains_each_run_compares_them_and_looks_inside(open_page, tiny_lesson):
    at = open_page("pages/lessons.py")
    at.selectbox(key="lessons.lesson").set_value("tiny").run()
    assert "about 7 s on 2 CPU cores" in texts(at.caption)
    at.button(key="lessons.run").click().run()
    assert not at.exception
    assert [j.spec.model for j in jobs(at)] == ["mlp", "gru"]
    assert at.button(key="lessons.run").disabled  # no second copy while it runs
    run_until(at, all_done).run()
    assert not at.exception
    assert all(j.status == "completed" for j in jobs(at))
    results = at.dataframe[1].value
    assert list(results["model"]) == ["Windowed MLP (NARX-style)", "GRU"]
    assert results["run"].tolist() == [j.run.run_id for j in jobs(at)]
    assert set(results["metric"]) == {"MAE"}  # the task's own metric, as on Models (sine has no unit)
    assert (results["train s"] > 0).all()
    assert [j.run.name for j in jobs(at)] == ["tiny", "tiny"]  # the preset's name: only the model sets them apart
    assert "name" not in at.dataframe[1].proto.column_order  # so no column of one name
    charts = at.get("plotly_chart")
    curves = charts[0].proto.spec
    assert "Windowed MLP" in curves and "GRU (job" in curves
    assert "baseline" not in curves  # baselines are scored on the test split, not on validation
    compare = json.loads(charts[1].proto.spec)["layout"]["yaxis"]
    assert compare["type"] == "log" and "log scale" in compare["title"]["text"]  # a huge bar hides no winner
    assert "Result" in texts(at.subheader) and "Inside the runs" in texts(at.subheader)
    assert any("Gates of" in chart.proto.spec for chart in charts[2:])  # the view: the GRU's gates, not the MLP

    RunStore().rename(jobs(at)[1].run.run_id, "gates at width 4")  # renamed on Models: the lesson shows it
    at.run()
    assert "name" in at.dataframe[1].proto.column_order
    assert at.dataframe[1].value["name"].tolist() == ["tiny", "gates at width 4"]


def test_a_teachers_link_opens_the_lesson_locked_with_its_parts_hidden(runs_dir):
    from streamlit.testing.v1 import AppTest

    from tests.app.conftest import APP

    shared = AppTest.from_file(str(APP), default_timeout=120)
    shared.run()
    shared.switch_page("pages/lessons.py")
    # A select box's parameter is the option as shown; a switch's is true or false.
    shared.query_params.update({"lessons.lesson": "4. LSTM gates", "lessons.teacher.lock": "true",
                                "lessons.teacher.hide_plan": "true", "lessons.teacher.hide_notice": "true"})
    shared.run()
    assert not shared.exception
    lesson = LESSONS.get("lstm-gates")
    assert [h.value for h in shared.header] == [lesson.topic]  # this lesson only
    assert [w.key for w in shared.selectbox] == ["lessons.lesson"]  # no longer experiments
    assert shared.selectbox(key="lessons.lesson").value == "lstm-gates"  # the picker, in the Teacher menu
    assert not shared.dataframe  # the settings are hidden
    assert lesson.notice not in texts(shared.markdown)  # the class guesses first
    assert shared.latex  # the equations stay
    assert shared.button(key="lessons.run")

    shared.toggle(key="lessons.teacher.hide_notice").set_value(False).run()  # the teacher reveals it
    assert lesson.notice in texts(shared.markdown)
    shared.toggle(key="lessons.teacher.lock").set_value(False).run()
    assert len(shared.selectbox) > 1  # unlocked: the longer experiments are back


def test_runs_of_one_model_are_told_apart_by_the_options_they_differ_in():
    from types import SimpleNamespace

    from seqlab.app.lessons.lesson import job_label
    from seqlab.training import ExperimentSpec
    from seqlab.lessons import get_preset

    jobs = [SimpleNamespace(spec=spec, job_id=i + 1) for i, spec in enumerate(get_preset("energy-day-ahead").specs)]
    assert [job_label(job, jobs) for job in jobs] == [
        "Linear ARX (least squares) · known_future=True (job 1)",
        "Linear ARX (least squares) · known_future=False (job 2)",
        "GRU (job 3)",
    ]
    alone = [SimpleNamespace(spec=ExperimentSpec("energy", "lstm"), job_id=7)]
    assert job_label(alone[0], alone) == "LSTM (job 7)"


def test_the_plan_shows_what_runs_and_the_text_names_the_charted_metric():
    from seqlab.app.lessons.lesson import plan_table

    preset = PRESETS["esn-mackey-glass"]
    plan = plan_table(preset)
    # The echo state network fits in one closed-form step, whatever its spec's epochs say.
    assert list(plan["training"]) == ["one closed-form fit", "10 epochs"]
    assert "MAE" in preset.description and "RMSE" not in preset.description  # the chart and table show MAE
    assert plan_table(PRESETS["vit-digits"])["training"].iloc[0] == "60 epochs, early stop after 10"
    from seqlab.app.lessons.lesson import training_text

    assert training_text(ExperimentSpec("adding", "lstm", epochs=1)) == "1 epoch"  # one, not "1 epochs"
    assert training_text(ExperimentSpec("pydoc", "gpt", epochs=1, steps=1200)) == "1,200 steps, 1 validation"
    # Two runs of one model: the option that sets each apart beside the model, not cut off in the settings.
    assert list(plan_table(LESSONS.get("positional-encoding").preset)["model"]) == [
        "Encoder-decoder Transformer · positions=none", "Encoder-decoder Transformer · positions=sinusoidal"]


def test_comparison_axis_is_log_for_errors_and_linear_for_accuracy():
    import pandas as pd

    from seqlab.app.run_table import comparison_figure

    errors = pd.DataFrame({"label": ["ESN", "LSTM"], "run": ["a", "b"], "key": ["mae", "mae"], "metric": ["MAE", "MAE"],
                           "test": [0.002, 0.3], "best baseline": [0.4, 0.4]})
    assert comparison_figure(errors, "t").layout.yaxis.type == "log"
    accuracy = errors.assign(key="accuracy", metric="accuracy (%)", test=[90.0, 95.0],
                             **{"best baseline": [10.0, 10.0]})
    assert comparison_figure(accuracy, "t").layout.yaxis.type != "log"
