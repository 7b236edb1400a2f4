"""The language, attention and Transformer lessons: their order, equations and views, each view drawn on its
lesson's tiny runs (``tests.lesson_runs``)."""

import importlib
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from seqlab.lessons.language import DATE_BLANK
from tests.app.conftest import texts

NAMES = ["tokens-and-embeddings", "rnn-vs-cnn-sentiment", "encoder-decoder-attention", "luong-local-attention",
         "self-attention-heads", "positional-encoding", "bert-masking", "gpt-generation"]


def lesson(name: str):
    from seqlab.lessons import LESSONS

    return LESSONS.get(name)


def draw(view: str, run_ids: list[str], root: str) -> None:
    import streamlit as st

    from seqlab.app.lessons.lesson_views import LESSON_VIEWS
    from seqlab.runs import RunStore

    store, link = RunStore(root), st.page_link
    st.page_link = lambda *args, **kwargs: None  # a lone function has no pages to link to
    try:
        LESSON_VIEWS.get(view)([store.read(i) for i in run_ids], "lesson")
    finally:
        st.page_link = link


@pytest.fixture
def shown(lesson_runs):
    """``shown(name)``: the lesson's view drawn on its tiny runs (``tests.lesson_runs``), the data cache they were
    trained on in use for the whole test."""

    def _shown(name: str) -> AppTest:
        ids = [run.run_id for run in lesson_runs(name)]
        at = AppTest.from_function(draw, args=(lesson(name).view, ids, str(lesson_runs.store.root)),
                                   default_timeout=120).run()
        assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
        return at

    with lesson_runs.offline():
        yield _shown


def chart_titles(at) -> list[str]:
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


def test_the_lessons_follow_the_lectures_order_with_equations_and_views():
    from seqlab.app.lessons.lesson_views import LESSON_VIEWS
    from seqlab.layers.docs import equations
    from seqlab.lessons import LESSONS

    registered = LESSONS.names()
    assert [n for n in registered if n in NAMES] == NAMES
    for name in NAMES:
        each = lesson(name)
        assert each.notice and each.text and each.seconds > 0, name
        for path in each.layers:
            module, cls = path.rsplit(".", 1)
            assert equations(getattr(importlib.import_module(module), cls)), path
        assert each.view in LESSON_VIEWS


@pytest.mark.slow
def test_tokens_view_cuts_one_sentence_three_ways_with_neighbours(shown):
    at = shown("tokens-and-embeddings")
    assert [m.value for m in at.markdown if m.value.startswith("#####")] == [
        "##### char tokens", "##### word tokens", "##### bpe tokens"]
    assert len(at.dataframe) == 3
    for table in at.dataframe:
        assert table.value["cosine"].iloc[0] == pytest.approx(1.0)  # the token itself first
        assert np.all(np.diff(table.value["cosine"]) <= 1e-9)


@pytest.mark.slow
def test_rnn_and_cnn_answer_the_same_sentence_with_contributions(shown):
    at = shown("rnn-vs-cnn-sentiment")
    assert [m.value for m in at.markdown if m.value.startswith("#####")] == ["##### GRU", "##### 1-D CNN"]
    assert chart_titles(at).count("Contribution of each token (integrated gradients)") == 2


@pytest.mark.slow
def test_translations_without_and_with_attention(shown):
    at = shown("encoder-decoder-attention")
    assert [m.label for m in at.metric] == ["Greedy translation"] * 2
    assert "This model has no attention" in texts(at.info)
    assert len(at.get("plotly_chart")) == 1, "one attention map: the run with attention"
    assert sum("Test translations" in m.value for m in at.markdown) == 2


@pytest.mark.slow
def test_local_attention_draws_its_window(shown):
    at = shown("luong-local-attention")
    assert len(at.get("plotly_chart")) == 1
    assert "predicted position p_t" in texts(at.caption)


@pytest.mark.slow
def test_heads_and_the_notes_walkthrough(shown):
    at = shown("self-attention-heads")
    titles = chart_titles(at)
    assert any(t.startswith("All 4 heads") for t in titles), titles
    assert "Scaled dot-product attention on “Hello how are” with the causal mask" in titles


@pytest.mark.slow
def test_positions_word_order_and_both_runs(shown):
    at = shown("positional-encoding")
    assert list(at.dataframe[0].value["the two orders read"]) == ["the same (a bag of words)", "differently"]
    assert [m.label for m in at.metric] == ["Greedy translation"] * 2


@pytest.mark.slow
def test_bert_masks_in_the_papers_shares_and_fills_each_runs_blank_side_by_side(shown):
    at = shown("bert-masking")
    shares = at.dataframe[1].value.set_index("share")["measured"]
    assert 0.12 < shares["chosen of the words"] < 0.18
    assert 0.75 < shares["of the chosen: [MASK]"] < 0.85
    assert 0.06 < shares["of the chosen: kept"] < 0.14
    blanks = [w.value for w in at.text_input if w.key.startswith("lesson.blanks.")]  # each run's own blank
    assert blanks == [DATE_BLANK, "the film is [MASK] , and the acting is [MASK] ."]
    assert texts(at.markdown).count("Best guess:") == 2


@pytest.mark.slow
def test_gpt_generates_and_times_its_cache(shown):
    at = shown("gpt-generation")
    assert any('title="p = ' in h.proto.body for h in at.get("html"))
    at.button(key="lesson.time").click().run()
    assert not at.exception and not at.error
    rates = next(d.value for d in at.dataframe if "tokens per second" in d.value)["tokens per second"]
    assert len(rates) == 2 and (rates > 0).all()


def test_the_masking_draw_is_text_arrow_can_send():
    import pyarrow as pa

    from seqlab.app.lessons.lesson_views_language import masking_draw

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "good", "film"]
    draw = masking_draw(vocab, [5, 6], np.array([2, 4, 6, 3]), np.array([False, True, False, False]))
    assert draw.loc["chosen"].tolist() == ["", "✓", "", ""]
    assert draw.loc["the model reads"].tolist() == ["[CLS]", "[MASK]", "film", "[SEP]"]
    pa.Table.from_pandas(draw)  # the server's ArrowTypeError: a column of a word and a boolean
