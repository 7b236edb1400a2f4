"""The Classify page: a typed sentence through a text classifier (probabilities, token contributions, the
trace) and through two taggers side by side (the forward one's tags cannot depend on later tokens)."""

import json

import pytest

from tests.app.conftest import figure_array, texts
from tests.app.test_text_classes_pages import copy_run, text_run  # noqa: F401  the fixture

DATES = {"samples": 120, "max_tokens": 40}


@pytest.fixture(scope="module")
def taggers(tmp_path_factory):
    """A forward GRU and a bidirectional GRU tagging the characters of written dates."""
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    store = RunStore(tmp_path_factory.mktemp("taggers") / "runs")
    return [
        run_experiment(ExperimentSpec("written_dates", "gru", DATES, {"units": 4, "bidirectional": both}, epochs=1,
                                      batch_size=16), store=store, savedmodel=False)
        for both in (False, True)
    ]


def charts(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def titles(at) -> list[str]:
    return [c["layout"]["title"]["text"] for c in charts(at)]


def test_without_text_runs_the_page_says_how_to_train_one(open_page):
    at = open_page("pages/classify.py")
    assert not at.exception
    assert "No text classifier or tagger yet" in texts(at.markdown)


def test_a_typed_sentence_gets_probabilities_contributions_and_the_trace(open_page, runs_dir, text_run):  # noqa: F811
    copy_run(runs_dir, text_run)
    at = open_page("pages/classify.py")
    assert not at.exception and not at.error
    at.text_area[0].set_value("a superb and clever film").run()
    assert not at.exception and not at.error
    assert at.metric[0].label == "Predicted class" and at.metric[0].value in ("1", "3", "5")
    found = titles(at)
    assert "Class probabilities" in found
    bars = next(c for c in charts(at) if c["layout"]["title"]["text"].startswith("Contribution of each token"))
    assert bars["data"][0]["x"] == ["1: a", "2: superb", "3: and", "4: clever", "5: film"]
    assert "(integrated gradients)" in bars["layout"]["title"]["text"]
    assert "add up to p(x) − p(0)" in texts(at.caption)
    # The same sentence inside the GRU: Inspect's heatmaps, its tokens on the time axis.
    assert any(t.startswith("Hidden state hₜ of gru") for t in found), found
    assert "gradient through time is shown for test sentences" in texts(at.info)

    at.get("button_group")[0].set_value("occlusion").run()
    assert not at.exception and not at.error
    assert "read as an unknown word ([UNK])" in texts(at.caption)


def test_two_taggers_side_by_side_and_the_forward_one_ignores_later_tokens(open_page, runs_dir, taggers):
    forward, both = taggers
    for run in taggers:
        copy_run(runs_dir, run)
    at = open_page("pages/classify.py")
    at.selectbox(key="classify.run").set_value(forward.run_id).run()
    at.selectbox(key="classify.compare").set_value(both.run_id).run()
    assert not at.exception and not at.error
    tagged = [h.proto.body for h in at.get("html") if "border-bottom:4px solid" in h.proto.body]
    assert len(tagged) >= 2  # tags under the tokens, for each model
    assert "tokens tagged right" in texts(at.caption)  # a test sentence: its true tags are known
    contributions = [c for c in charts(at) if c["layout"]["title"]["text"].startswith("Contribution")]
    assert len(contributions) == 2
    first = next(s for s in at.select_slider if s.key.startswith(f"classify.answer.{forward.run_id}.token")).value
    forward_scores, both_scores = (figure_array(c["data"][0]["y"]) for c in contributions)
    assert len(forward_scores) > first + 1
    assert (forward_scores[first + 1:] == 0).all()  # a forward model has not read the later tokens
    assert (both_scores[first + 1:] != 0).any()  # a bidirectional one has
