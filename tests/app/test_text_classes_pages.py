"""A text classifier in the dashboard: its sentences on Models, Inspect on a typed sentence, CLI predict --text."""

import json
import shutil

import pytest

from tests.app.conftest import texts
from tests.data.test_textcsv import reviews
from tests.test_cli import run_cli


@pytest.fixture(scope="module")
def text_run(tmp_path_factory):
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    folder = tmp_path_factory.mktemp("text_runs")
    options = {"path": str(reviews(folder)), "text": "review", "label": "stars", "max_tokens": 6}
    spec = ExperimentSpec("textcsv", "gru", options, {"units": 4}, epochs=2, batch_size=8)
    return run_experiment(spec, store=RunStore(folder / "runs"))


def copy_run(runs_dir, run):
    runs_dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(run.path, runs_dir / run.run_id)


def test_models_page_shows_the_confusion_matrix_and_mistaken_sentences(open_page, runs_dir, text_run):
    copy_run(runs_dir, text_run)
    at = open_page("pages/models.py")
    assert not at.exception and not at.error
    titles = [json.loads(chart.proto.spec)["layout"]["title"]["text"] for chart in at.get("plotly_chart")]
    assert any("onfusion" in t for t in titles), titles


def test_inspect_traces_a_typed_sentence_with_its_tokens_on_the_time_axis(open_page, runs_dir, text_run):
    copy_run(runs_dir, text_run)
    at = open_page("pages/inspect.py")
    assert not at.exception and not at.error
    box = at.text_area[0]
    assert box.value  # a test sentence, as the tokeniser reads it
    box.set_value("a superb and clever film").run()
    assert not at.exception and not at.error
    heatmap = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert heatmap["layout"]["title"]["text"].startswith("Hidden state hₜ of gru")
    assert "5 tokens traced" in texts(at.caption)
    assert "gradient through time is shown for test sentences" in texts(at.info)


def test_cli_predict_classifies_raw_texts(capsys, runs_dir, text_run):
    copy_run(runs_dir, text_run)
    code, out, err = run_cli(capsys, "predict", text_run.run_id, "--text", "a superb film", "--text", "dull",
                             "--json")  # fmt: skip
    assert code == 0, err
    rows = json.loads(out.splitlines()[-1])["predictions"]
    assert [r["text"] for r in rows] == ["a superb film", "dull"]
    assert {r["class"] for r in rows} <= {"1", "3", "5"}
    assert sum(v for k, v in rows[0].items() if k.startswith("p(")) == pytest.approx(1.0, abs=1e-5)
    code, _, err = run_cli(capsys, "predict", text_run.run_id, "--text", "  ")
    assert code == 2 and "are empty" in err
    code, out, err = run_cli(capsys, "predict", text_run.run_id, "--text", "qwxz zzyq",
                             "--text", "superb " * 9)  # fmt: skip
    assert code == 0
    assert "every token of text 1 is unknown" in err and "text 2 has 9 word tokens; the model read its first 6" in err
