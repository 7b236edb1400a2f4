"""While a job trains, the live panel draws the learning rate of every batch: a cosine schedule's warm-up shows."""

import json

import pytest

from tests.app.conftest import all_done, figure_array, jobs, run_until


@pytest.mark.slow  # trains until cancelled, then evaluates and exports: about 20 s
def test_the_live_panel_draws_the_warm_up_of_a_cosine_schedule(open_page):
    at = open_page("pages/train.py")
    at.selectbox(key="train.dataset").set_value("sine").run()
    at.selectbox(key="train.model.forecast").set_value("mlp").run()
    at.number_input(key="train.arch.mlp.units").set_value(4).run()
    at.number_input(key="train.fit.epochs").set_value(200).run()
    at.selectbox(key="train.fit.schedule").set_value("cosine").run()
    at.number_input(key="train.fit.warmup_steps").set_value(1000).run()  # still climbing while we look
    at.button(key="train.submit").click().run()
    job = jobs(at)[0]
    run_until(at, lambda _: sum(e["type"] == "batch" for e in job.events_since(0)) >= 3)
    at.run()
    chart = next(c for c in at.get("plotly_chart") if "Learning rate while training" in c.proto.spec)
    rates = figure_array(json.loads(chart.proto.spec)["data"][0]["y"])
    assert len(rates) >= 3 and rates[0] == 0 and (rates[1:] > rates[:-1]).all()  # the linear warm-up from 0
    at.button(key=f"live.cancel.{job.job_id}").click().run()
    run_until(at, all_done).run()
    assert job.run is not None and job.run.history["batch"][-1]["learning_rate"] > 0  # kept in the history
