"""BERT pre-training data: [CLS] A [SEP] B [SEP], next-sentence labels, targets aligned, held-out splits masked."""

import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.data.bert_pretraining import (
    CLS_ID, MASK_ID, SEP_ID, bert_pair_data, cut_pair, make_pairs, pair_rows,
)
from seqlab.text import CLS, MASK, PAD_ID, SEP
from tests.data.test_movie_sentiment import cache, cached  # noqa: F401  the fake vaderSentiment sdist

OPTIONS = {"tokenizer": "word", "vocab_size": 200, "lowercase": True, "strip_punctuation": False,
           "collapse_whitespace": True, "max_tokens": 12, "val_fraction": 0.1, "test_fraction": 0.1, "seed": 0}
TEXTS = [f"sentence {i} says word{i % 7} and then word{i % 5} ends here" for i in range(120)] + ["one"]


def test_cut_pair_shortens_the_longer_side():
    assert cut_pair([1, 2, 3, 4, 5], [6, 7], 8) == ([1, 2, 3], [6, 7])
    assert cut_pair([1], [2, 3, 4, 5], 6) == ([1], [2, 3])


def test_pairs_half_true_continuations_the_others_from_other_texts():
    texts = [[10 * i + j for j in range(6)] for i in range(400)]
    firsts, seconds, is_next = make_pairs(texts, np.random.default_rng(0))
    assert is_next.mean() == pytest.approx(0.5, abs=0.07)
    for text, a, b, label in zip(texts, firsts, seconds, is_next):
        assert a == text[: len(a)] and 1 <= len(a) < len(text)
        assert (b == text[len(a):]) == bool(label), "B continues A exactly when the label says so"
        assert label or b[0] // 10 != text[0] // 10, "a random B comes from another text"


def test_rows_layout_and_aligned_targets():
    x, y = pair_rows([[7, 8]], [[9]], np.array([1]), 8)
    assert x.tolist() == [[CLS_ID, 7, 8, SEP_ID, 9, SEP_ID, 0, 0]]
    assert y.tolist() == [[1, 7, 8, 0, 9, 0, 0, 0]]  # NSP label at [CLS]; every word a candidate; specials 0


def test_pair_data_splits():
    data = bert_pair_data("tiny", TEXTS, OPTIONS)
    assert data.task == "masked_lm" and data.tokenizer.specials == ("[PAD]", "[UNK]", CLS, SEP, MASK)
    assert any("Left out 1 of 121 texts" in note for note in data.notes)
    train, test = data.splits["train"], data.splits["test"]
    assert (train.x[:, 0] == CLS_ID).all() and ((train.x == SEP_ID).sum(axis=1) == 2).all()
    assert MASK_ID not in train.x, "training is masked by the model, anew at every batch"
    assert set(np.unique(train.y[:, 0])) == {0, 1}
    chosen = test.y[:, 1:] != PAD_ID
    words = (test.x[:, 1:] != PAD_ID) & (test.x[:, 1:] != SEP_ID)
    assert 0.05 < chosen.sum() / words.sum() < 0.3, "the held-out split is masked once, 15 % of its words"
    assert (test.x[:, 1:][chosen] == MASK_ID).mean() > 0.5
    assert len(data.frame) == sum(len(s) for s in data.splits.values())
    again = bert_pair_data("tiny", TEXTS, OPTIONS)
    assert (again.splits["test"].x == test.x).all(), "fixed by the seed"


def test_movie_reviews_mlm_leaves_out_the_sentiment_test_sentences(cache):  # noqa: F811
    cached(cache)
    sentiment = load_dataset("movie_sentiment")
    frame = sentiment.frame
    held_out = set(frame.loc[frame["split"] == "test", "text"])
    data = load_dataset("movie_reviews_mlm", max_tokens=16)
    assert held_out and not held_out & set(data.frame["text"])
    assert any(note.startswith("Left out the") for note in data.notes)
    assert set(frame.loc[frame["split"] == "train", "text"]) <= set(data.frame["text"])
