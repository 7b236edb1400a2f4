import numpy as np
import pytest

from seqlab.data import get_dataset, load_dataset
from seqlab.data.corpora import Corpus
from seqlab.data.text_windows import TEXT_CHOICES, TEXT_DEFAULTS, text_data
from seqlab.data.token_stream import stream
from seqlab.text.tokenizer import TOKENIZERS


def _corpus(text):
    return Corpus(text, "toy", "test", "public domain")


def test_windows_predict_the_next_id_at_every_position():
    split = stream(np.arange(10), lookback=3, stride=2)
    assert split.x.tolist() == [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6, 7, 8]]
    assert split.y.tolist() == [[1, 2, 3], [3, 4, 5], [5, 6, 7], [7, 8, 9]]
    assert split.x.dtype == np.int32 and split.origin.tolist() == [0, 2, 4, 6]


def test_tokeniser_fitted_on_the_training_text_only_and_options_recorded():
    text = "abc" * 30 + "xyzxyzxyzx"  # 90 + 10 characters: x, y, z only in the last 10 %
    data = text_data("toy", _corpus(text), **{**TEXT_DEFAULTS, "lookback": 4, "stride": 4, "lowercase": True})
    assert set(data.tokenizer.vocab[2:]) == {"a", "b", "c"}
    assert data.splits["test"] is data.splits["val"]
    assert (data.splits["val"].y == 1).any()  # unseen characters are [UNK] in the held-out split
    assert data.options["lowercase"] is True and data.options["tokenizer"] == "char"
    assert data.input_shape == (4,) and data.task == "language"


def test_pydoc_is_registered_with_word_and_bpe_tokenisers():
    info = get_dataset("pydoc")
    assert info.task == "language" and {"tokenizer", "vocab_size", "lowercase", "stride"} <= set(info.defaults)
    assert set(TEXT_CHOICES["tokenizer"]) == set(TOKENIZERS) and info.as_dict()["choices"] == {
        "tokenizer": ["char", "word", "bpe"]
    }
    word = load_dataset("pydoc", tokenizer="word", vocab_size=50, characters=4000, lookback=8, stride=8)
    assert word.tokenizer.kind == "word" and word.tokenizer.vocab_size <= 50
    bpe = load_dataset("pydoc", tokenizer="bpe", vocab_size=120, characters=4000, lookback=8, stride=8)
    assert bpe.tokenizer.kind == "bpe" and len(bpe.splits["train"]) < len(
        load_dataset("pydoc", characters=4000, lookback=8, stride=8).splits["train"]
    )  # merged tokens: fewer windows than characters


@pytest.mark.parametrize(
    "options, message",
    [
        ({"characters": 100, "lookback": 32}, "too short for a context of 32"),
        ({"tokenizer": "morse"}, "tokenizer must be one of char, word, bpe"),
        ({"vocab_size": 2}, "vocab_size"),
        ({"embedding_dim": 0}, "embedding_dim"),
    ],
)
def test_bad_text_options_are_clear_errors(options, message):
    with pytest.raises(ValueError, match=message):
        load_dataset("pydoc", **options)


@pytest.fixture
def no_windows(monkeypatch):
    """Any window cut fails the test: a refusal must come before."""

    def never(*args, **kwargs):
        raise AssertionError("windows were cut before the check")

    monkeypatch.setattr("seqlab.data.text_windows.stream", never)


@pytest.mark.parametrize(
    "limit, value, options, message",
    [
        ("SEQLAB_MAX_WORK_SECONDS", "1", {},
         r"^Counting the Markov chains of orders 1 to 5 over 90,000 training tokens would take about 2 s, more than "
         r"1 s .*SEQLAB_MAX_WORK_SECONDS.*the characters option"),
        ("SEQLAB_MAX_DATA_MB", "5", {},
         r"^Counting the Markov chains of orders 1 to 5 over 90,000 training tokens would take 10 MB, more than 5 MB"),
        ("SEQLAB_MAX_DATA_MB", "20", {"tokenizer": "bpe", "vocab_size": 3000},
         r"^The predicted probabilities of \d+ test windows of 64 tokens over a vocabulary of [\d,]+ would take "
         r"\d+ MB, more than 20 MB .*vocab_size"),
        ("SEQLAB_MAX_WORK_SECONDS", "1", {"tokenizer": "word", "vocab_size": 3000},
         r"^Scoring the Markov chains of orders 1 to 5 on \d+ test windows of 64 tokens over a vocabulary of [\d,]+ "
         r"would take about 3 s, more than 1 s .*SEQLAB_MAX_WORK_SECONDS.*vocab_size"),
    ],
)
def test_a_text_its_runs_could_not_be_judged_on_is_refused_before_any_window(
    monkeypatch, no_windows, limit, value, options, message
):
    monkeypatch.setenv(limit, value)
    with pytest.raises(ValueError, match=message):
        load_dataset("pydoc", characters=100_000, **options)
