"""A BERT pre-training run on Models (test guesses, the SavedModel's guesses) and on Inspect (attention, p(B | A))."""

import numpy as np

from tests.app.conftest import texts
from tests.bert_run import bert_world, pretrained_run  # noqa: F401  the module's fixture


def test_models_lists_the_hidden_words_and_serves_the_pair(bert_world, open_page, monkeypatch):
    run = pretrained_run(bert_world)
    monkeypatch.setenv("SEQLAB_RUNS_DIR", str(run.path.parent))
    monkeypatch.setenv("SEQLAB_CACHE", str(run.path.parent.parent / "cache"))  # the fake corpus, not open_page's
    at = open_page("pages/models.py")
    assert not at.exception and not at.error
    guesses = next(d.value for d in at.dataframe if "hidden words" in d.value.columns)
    assert len(guesses) > 0 and {"pair as read", "model's guesses", "B follows A"} <= set(guesses.columns)
    assert (guesses["hidden words"] != "").all(), "only pairs with a word hidden are listed"
    first = guesses.iloc[0]
    assert len(first["hidden words"].split(" · ")) == len(first["model's guesses"].split(" · "))
    at.button(key=f"models.serve.{run.run_id}.go").click().run()
    at.button(key=f"models.serve.{run.run_id}.export").click().run()  # trained without it (tests.bert_run)
    assert not at.exception and not at.error
    shown = {m.label: m.value for m in at.metric}
    assert "Hidden words" in shown and "SavedModel's guesses" in shown and "p(B follows A)" in shown


def test_inspect_reads_a_pair_and_shows_the_encoder_attention(bert_world, open_page, monkeypatch):
    run = pretrained_run(bert_world)
    monkeypatch.setenv("SEQLAB_RUNS_DIR", str(run.path.parent))
    monkeypatch.setenv("SEQLAB_CACHE", str(run.path.parent.parent / "cache"))  # the fake corpus, not open_page's
    at = open_page("pages/inspect.py")
    assert not at.exception and not at.error
    assert at.selectbox(key="inspect.run").value == run.run_id
    assert "p(B follows A)" in [m.label for m in at.metric]
    assert any("Self-attention of" in (c.proto.spec or "") for c in at.get("plotly_chart"))
    at.text_area[0].set_value("the film is [MASK] .").run()
    assert not at.exception and not at.error
    probability = float(next(m.value for m in at.metric if m.label == "p(B follows A)"))
    assert 0.0 <= probability <= 1.0
    assert "Fill in" in texts(at.caption)
    ticks = next(c for c in at.get("plotly_chart") if "Self-attention of" in c.proto.spec).proto.spec
    assert "[cls]" in ticks.lower() and "[mask]" in ticks.lower() and "[sep]" in ticks.lower()
    assert np.isfinite(probability)
