"""Fill in page: guesses per [MASK] as bar charts with probabilities; no runs, no [MASK], long texts explained."""

import json

import numpy as np

from tests.app.conftest import figure_array, texts
from tests.bert_run import bert_world, pretrained_run  # noqa: F401  the module's fixture


def test_without_runs_the_page_points_to_train(open_page):
    at = open_page("pages/fill_in.py")
    assert not at.exception and not at.error
    assert "No BERT pre-training runs yet" in texts(at.markdown) and "movie_reviews_mlm" in texts(at.markdown)


def test_guesses_for_every_blank(bert_world, open_page, monkeypatch):
    run = pretrained_run(bert_world)
    monkeypatch.setenv("SEQLAB_RUNS_DIR", str(run.path.parent))  # the pre-training run's store, not runs_dir
    at = open_page("pages/fill_in.py")
    assert not at.exception and not at.error
    assert at.selectbox(key="fill_in.run").value == run.run_id
    charts = at.get("plotly_chart")
    assert len(charts) == 2, "one chart per [MASK] of the example"
    figure = json.loads(charts[0].proto.spec)
    probabilities = figure_array(figure["data"][0]["x"])
    assert len(probabilities) == 5 and np.all(np.diff(probabilities) <= 0) and probabilities.sum() <= 100 + 1e-6
    assert "Best guess:" in texts(at.markdown)

    at.number_input(key="fill_in.top_k").set_value(3).run()
    at.text_input(key="fill_in.text").set_value("the zorblax film is [MASK] .").run()
    assert not at.exception and len(at.get("plotly_chart")) == 1
    assert "'zorblax'" in texts(at.info)

    at.text_input(key="fill_in.text").set_value("the film is dull .").run()
    assert not at.exception and "no [MASK]" in texts(at.error) and not at.get("plotly_chart")
    at.text_input(key="fill_in.text").set_value("the film is dull , number 1 . " * 5 + "[MASK] .").run()
    assert not at.exception and "more than the 14 the model reads" in texts(at.info)
