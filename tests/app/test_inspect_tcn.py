"""Inspect for a TCN run: the dilation diagram of the chosen output step, its receptive field and equations."""

import json
import shutil

import pytest

from tests.app.conftest import figure_array, texts

PAGE = "pages/inspect.py"


@pytest.fixture(scope="module")
def tcn_run(tmp_path_factory):
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    spec = ExperimentSpec("sine", "tcn", {"length": 300, "lookback": 12, "horizon": 3},
                          {"filters": 3, "kernel_size": 2, "layers": 2}, epochs=1, batch_size=64)
    return run_experiment(spec, store=RunStore(tmp_path_factory.mktemp("inspect_tcn_runs")))


def diagram(at) -> dict:
    [chart] = [json.loads(c.proto.spec) for c in at.get("plotly_chart")
               if json.loads(c.proto.spec)["layout"]["title"]["text"].startswith("What output")]
    return chart


def test_a_tcn_run_shows_what_the_chosen_step_reads(open_page, runs_dir, tcn_run):
    runs_dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(tcn_run.path, runs_dir / tcn_run.run_id)
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert at.metric[0].value == "7 steps"  # R = 1 + 2 (2 - 1)(1 + 2)
    assert any("R = 1 + 2(k-1)" in latex.value for latex in at.latex)
    last = diagram(at)
    assert "reads 7 of the 12 input steps" in texts(at.caption)
    at.select_slider(key=f"inspect.tcn.t.{tcn_run.run_id}").set_value(2).run()
    first = diagram(at)
    caption = texts(at.caption)
    assert "reads 3 of the 12 input steps" in caption and "4 step(s) before the sequence" in caption
    assert len(figure_array(first["data"][2]["y"])) < len(figure_array(last["data"][2]["y"]))  # fewer steps reached near the start
