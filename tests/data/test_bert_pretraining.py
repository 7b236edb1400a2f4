"""BERT pre-training data: [CLS] A [SEP] B [SEP], next-sentence labels, targets aligned, held-out splits masked."""

import numpy as np

from seqlab.data import load_dataset
from seqlab.data.bert_pretraining import CLS_ID, MASK_ID, SEP_ID, bert_pair_data, cut_texts, pair_rows, sides
from seqlab.text import CLS, MASK, PAD_ID, SEP, UNK_ID
from tests.data.test_movie_sentiment import cache, cached  # noqa: F401  the fake vaderSentiment sdist

OPTIONS = {"tokenizer": "word", "vocab_size": 200, "lowercase": True, "strip_punctuation": False,
           "collapse_whitespace": True, "max_tokens": 12, "val_fraction": 0.1, "test_fraction": 0.1, "seed": 0}
TEXTS = [f"sentence {i} says word{i % 7} and then word{i % 5} ends here" for i in range(120)] + ["one"]


def test_texts_are_cut_into_a_and_its_continuation_each_at_most_half():
    texts = [[10 * i + j for j in range(2 + i % 9)] for i in range(200)] + [[5]]
    firsts, seconds = cut_texts(texts, np.random.default_rng(0), half=4)
    assert len(firsts) == 200, "a text of one token has no pair"
    for text, a, b in zip(texts, firsts, seconds):
        assert 1 <= len(a) <= 4 and 1 <= len(b) <= 4
        cut = text.index(b[0])
        assert a == text[:cut][-4:] and b == text[cut:][:4], "A's last tokens, B's first: contiguous at the cut"


def test_rows_layout_and_aligned_targets():
    x, y = pair_rows([[7, 8]], [[9, UNK_ID]], 8)
    assert x.tolist() == [[CLS_ID, 7, 8, SEP_ID, 9, UNK_ID, SEP_ID, 0]]
    assert y.tolist() == [[1, 7, 8, 0, 9, 0, 0, 0]]  # is_next at [CLS]; every word a candidate; [UNK], specials 0
    assert sides(x[0]) == ([7, 8], [9, UNK_ID])


def test_pair_data_splits():
    data = bert_pair_data("tiny", TEXTS, OPTIONS)
    assert data.task == "masked_lm" and data.tokenizer.specials == ("[PAD]", "[UNK]", CLS, SEP, MASK)
    assert any("Left out 1 of 121 texts" in note for note in data.notes)
    train, test = data.splits["train"], data.splits["test"]
    assert (train.x[:, 0] == CLS_ID).all() and ((train.x == SEP_ID).sum(axis=1) == 2).all()
    assert MASK_ID not in train.x, "training is masked by the model, anew at every batch"
    assert (train.y[:, 0] == 1).all(), "training holds true continuations: the model pairs them anew"
    assert set(np.unique(test.y[:, 0])) == {0, 1}, "held-out pairs are drawn once"
    assert (train.x != PAD_ID).sum(axis=1).max() <= 3 + 2 * ((OPTIONS["max_tokens"] - 3) // 2)
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


def test_an_unknown_word_stays_in_the_text_but_is_never_a_word_to_guess():
    data = bert_pair_data("tiny", TEXTS, {**OPTIONS, "vocab_size": 16})  # the digits of "sentence 37" unknown
    for split in data.splits.values():
        assert (split.x == UNK_ID).any()
        assert not (split.y[:, 1:] == UNK_ID).any()
