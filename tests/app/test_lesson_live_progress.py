"""A lesson's live panel: while every training slot is taken its runs say their place in line where the chart will
be (not an empty axis), then each run's loss draws batch by batch, as on the Train page."""

import dataclasses
import json

import pytest

from seqlab.lessons import LESSONS
from seqlab.limits import current_limits
from seqlab.training import ExperimentSpec
from seqlab.training.jobs import SLOTS, Job
from seqlab.training.presets import Preset
from tests.app.conftest import all_done, figure_array, jobs, run_until, texts

TINY = dict(data_options={"length": 300, "lookback": 12, "horizon": 4}, model_options={"units": 4}, batch_size=32)


@pytest.fixture
def long_lesson(monkeypatch):
    """A lesson of two tiny runs, the first with epochs enough to be watched while it trains."""
    preset = Preset(
        name="watched", title="Watched lesson", description="Two tiny runs.",
        specs=(ExperimentSpec("sine", "mlp", epochs=300, **TINY), ExperimentSpec("sine", "gru", epochs=2, **TINY)),
    )
    lesson = dataclasses.replace(LESSONS.get("gru-gates"), topic="Watched", preset=preset, seconds=7)
    monkeypatch.setitem(LESSONS._entries, "watched", lesson)
    return lesson


@pytest.fixture
def slots_taken():
    """Every training slot of this process held by another session's job, until the test lets them go."""
    holders = [Job(ExperimentSpec("sine", "mlp", **TINY)) for _ in range(current_limits().max_concurrent_jobs)]
    for holder in holders:
        assert SLOTS.acquire(holder)

    def free():
        while holders:
            holders.pop()
            SLOTS.release()

    yield free
    free()


@pytest.mark.slow  # trains until cancelled, then evaluates and exports: about 20 s
def test_a_lesson_waits_in_line_where_its_chart_will_be_then_draws_every_batch(open_page, long_lesson, slots_taken):
    at = open_page("pages/lessons.py")
    at.selectbox(key="lessons.lesson").set_value("watched").run()
    at.button(key="lessons.run").click().run()
    first, second = jobs(at)
    run_until(at, lambda _: first.status == "waiting")
    at.run()
    assert not at.exception
    taken = current_limits().max_concurrent_jobs
    assert first.position == 1  # the first waiting: only the jobs holding the slots are ahead of it
    assert f"waiting for a free training slot: number {taken} in line" in texts(at.info)  # where the chart will be
    assert not any("Loss while training" in chart.proto.spec for chart in at.get("plotly_chart"))
    bars = [bar.proto.text for bar in at.get("progress")]
    assert any(f"waiting for a free slot: number {taken + 1} in line" in bar for bar in bars)  # the second run

    slots_taken()
    run_until(at, lambda _: sum(e["type"] == "batch" for e in first.events_since(0)) >= 3)
    at.run()
    chart = next(c for c in at.get("plotly_chart") if "Loss while training" in c.proto.spec)
    traces = json.loads(chart.proto.spec)["data"]
    per_batch = next(t for t in traces if t["name"].endswith(", per batch"))
    assert "Windowed MLP" in per_batch["name"] and len(figure_array(per_batch["y"])) >= 3
    assert "waiting for a free slot" not in texts(at.info)
    for job in (first, second):
        job.cancel()
    run_until(at, all_done).run()
