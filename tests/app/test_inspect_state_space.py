"""Inspect for a state-space run: the chosen channel's state x_t over the steps, and the layer's equations."""

import pytest

from tests.app.conftest import figure_array, figure_titled, one_epoch_run, open_with_runs, texts

SINE = {"length": 300, "lookback": 12, "horizon": 3}


@pytest.fixture(scope="module")
def s4d_run(tmp_path_factory):
    return one_epoch_run(tmp_path_factory.mktemp("inspect_s4d_runs"), "sine", "s4d", SINE,
                       {"width": 3, "state_size": 4, "layers": 1})


def test_an_s4d_run_shows_a_channels_state_per_mode_and_step(open_page, runs_dir, s4d_run):
    at = open_with_runs(open_page, runs_dir, "pages/inspect.py", s4d_run)
    assert not at.exception and not at.error
    assert any(r"\bar{A}" in latex.value for latex in at.latex)  # the layer's docstring equations
    state = figure_titled(at, "State of s4d_1")
    heat = state["data"][-1]
    assert heat["z"]["shape"] == "4, 12" and (figure_array(heat["z"]) >= 0).all()  # N modes x T steps, |x_t|
    assert "|xₜ| (magnitude)" in state["layout"]["title"]["text"]
    at.radio(key=f"inspect.ssm.part.{s4d_run.run_id}").set_value("x_imag").run()
    assert "Im xₜ" in figure_titled(at, "State of s4d_1")["layout"]["title"]["text"]
    assert "One row per mode n = 0 .. 3" in texts(at.caption)
