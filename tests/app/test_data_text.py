"""Data page for text: the corpus in numbers, one sentence under three tokenisers, the vocabulary sweep, BPE merges."""

import json

import pytest

from seqlab.data.text_windows import make_tokenizer
from seqlab.text import Standardize
from tests.app.conftest import texts

SECTIONS = ["The corpus", "One sentence, three tokenisers", "Vocabulary size: unknown tokens and sequence length",
            "The first BPE merges"]  # fmt: skip


@pytest.fixture
def pydoc_page(open_page):
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value("pydoc").run()
    assert not at.exception and not at.error
    return at


def test_pydoc_shows_every_section_with_statistics_tokens_sweep_and_merges(pydoc_page):
    at = pydoc_page
    assert [s.value for s in at.subheader][1:] == SECTIONS
    corpus = at.table[0].value
    assert list(corpus.columns) == ["training text", "held-out text"]
    assert {"characters", "words", "non-empty lines", "distinct characters", "distinct words"} <= set(corpus.index)
    assert int(corpus.loc["characters", "training text"].replace(",", "")) > 400_000
    # The default sentence is a held-out line, cut by each tokeniser: characters give the most tokens.
    sentence = at.text_input(key="data.sentence.pydoc").value
    counts = [int(m.value.split(": ")[1].split()[0]) for m in at.markdown if m.value.startswith("**") and "tokens" in m.value
              and not m.value.startswith("**The")]  # fmt: skip
    assert len(sentence) >= 40 and len(counts) == 3 and counts[0] == len(sentence) > counts[2] >= counts[1]
    assert not at.warning and "no unknown token" in texts(at.caption)
    oov, length = (json.loads(c.proto.spec) for c in at.get("plotly_chart")[1:3])
    assert "(%)" in oov["layout"]["yaxis"]["title"]["text"] and oov["layout"]["xaxis"]["type"] == "log"
    assert "tokens per line" in length["layout"]["yaxis"]["title"]["text"]
    words = next(t for t in oov["data"] if t["name"] == "words")
    assert words["y"][0] > words["y"][-1] > 0  # a larger word vocabulary leaves fewer held-out words unknown
    merges = at.dataframe[0].value
    assert list(merges.columns) == ["rank", "left", "right", "token", "count"] and len(merges) == 30
    bpe = make_tokenizer("bpe", 1000, Standardize(False, False, False))
    first = bpe.fit(_pydoc_training_text()).merges[0]
    assert (merges.left[0], merges.right[0]) == tuple(t.replace(" ", "␣").replace("\n", "\\n") for t in first)
    assert merges["count"].iloc[0] >= merges["count"].iloc[-1] > 0


def _pydoc_training_text() -> str:
    from seqlab.data.corpora import load_pydoc

    return load_pydoc().split()[0]


def test_an_unknown_word_is_marked_and_bad_sentences_get_a_message(pydoc_page):
    at = pydoc_page
    at.text_input(key="data.sentence.pydoc").set_value("the zyzzyvaqq function").run()
    assert not at.exception and "**1 unknown** (red, [UNK])" in texts(at.caption)  # the word tokeniser's
    chips = [h.proto.body for h in at.get("html")]
    assert sum("[UNK]" in c for c in chips) == 1 and "zyzzyvaqq" in chips[1]
    at.text_input(key="data.sentence.pydoc").set_value("   ").run()
    assert not at.exception and "empty or only whitespace" in texts(at.info)
    at.text_input(key="data.sentence.pydoc").set_value("☃☃ ☃").run()
    assert not at.exception and "is unknown" in texts(at.warning)
    assert len(at.get("plotly_chart")) == 3  # the other sections stay


def test_shakespeare_gets_the_same_sections(open_page):
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value("shakespeare").run()
    assert not at.exception and not at.error
    assert [s.value for s in at.subheader][1:] == SECTIONS and len(at.dataframe) == 1
