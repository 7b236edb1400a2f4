"""Inspect for a state-space run: the chosen channel's state x_t over the steps, and the layer's equations."""

import json
import shutil

import pytest

from tests.app.conftest import figure_array, texts

PAGE = "pages/inspect.py"


@pytest.fixture(scope="module")
def s4d_run(tmp_path_factory):
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    spec = ExperimentSpec("sine", "s4d", {"length": 300, "lookback": 12, "horizon": 3},
                          {"width": 3, "state_size": 4, "layers": 1}, epochs=1, batch_size=64)
    return run_experiment(spec, store=RunStore(tmp_path_factory.mktemp("inspect_s4d_runs")))


def state_chart(at) -> dict:
    [chart] = [json.loads(c.proto.spec) for c in at.get("plotly_chart")
               if json.loads(c.proto.spec)["layout"]["title"]["text"].startswith("State of s4d_1")]
    return chart


def test_an_s4d_run_shows_a_channels_state_per_mode_and_step(open_page, runs_dir, s4d_run):
    runs_dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(s4d_run.path, runs_dir / s4d_run.run_id)
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert any(r"\bar{A}" in latex.value for latex in at.latex)  # the layer's docstring equations
    heat = state_chart(at)["data"][-1]
    assert heat["z"]["shape"] == "4, 12" and (figure_array(heat["z"]) >= 0).all()  # N modes x T steps, |x_t|
    assert "|xₜ| (magnitude)" in state_chart(at)["layout"]["title"]["text"]
    at.radio(key=f"inspect.ssm.part.{s4d_run.run_id}").set_value("x_imag").run()
    assert "Im xₜ" in state_chart(at)["layout"]["title"]["text"]
    assert "One row per mode n = 0 .. 3" in texts(at.caption)
