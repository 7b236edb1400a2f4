"""Inspect for a TCN run: the dilation diagram of the chosen output step, its receptive field and equations."""

import pytest

from tests.app.conftest import figure_array, figure_titled, one_epoch_run, open_with_runs, texts
from tests.app.test_inspect_state_space import SINE


@pytest.fixture(scope="module")
def tcn_run(tmp_path_factory):
    return one_epoch_run(tmp_path_factory.mktemp("inspect_tcn_runs"), "sine", "tcn", SINE,
                       {"filters": 3, "kernel_size": 2, "layers": 2})


def test_a_tcn_run_shows_what_the_chosen_step_reads(open_page, runs_dir, tcn_run):
    at = open_with_runs(open_page, runs_dir, "pages/inspect.py", tcn_run)
    assert not at.exception and not at.error
    assert at.metric[0].value == "7 steps"  # R = 1 + 2 (2 - 1)(1 + 2)
    assert any("R = 1 + 2(k-1)" in latex.value for latex in at.latex)
    last = figure_titled(at, "What output")
    assert "reads 7 of the 12 input steps" in texts(at.caption)
    at.select_slider(key=f"inspect.tcn.t.{tcn_run.run_id}").set_value(2).run()
    first = figure_titled(at, "What output")
    caption = texts(at.caption)
    assert "reads 3 of the 12 input steps" in caption and "4 step(s) before the sequence" in caption
    assert len(figure_array(first["data"][2]["y"])) < len(figure_array(last["data"][2]["y"]))  # fewer steps reached near the start
