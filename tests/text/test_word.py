import pytest

from seqlab.text import Standardize, WordTokenizer
from seqlab.text.word import split_words
from tests.text.conftest import VERSE


def test_words_and_punctuation_marks_are_tokens():
    assert split_words("king, o'er the\tsea…") == ["king", ",", "o", "'", "er", "the", "sea", "…"]


def test_most_frequent_words_first_ties_alphabetical_and_the_cap_counts_specials():
    tok = WordTokenizer(vocab_size=5).fit("b a c a b a d")
    assert tok.vocab == ["[PAD]", "[UNK]", "a", "b", "c"]
    assert tok.note is None
    assert tok.decode(tok.encode("A d b!")) == "a [UNK] b [UNK]"


def test_min_count_sends_rare_words_to_unk():
    tok = WordTokenizer(min_count=2).fit("b a c a b a d")
    assert tok.vocab[2:] == ["a", "b"]
    with pytest.raises(ValueError, match="lower min_count"):
        WordTokenizer(min_count=9).fit("b a c")


def test_a_vocabulary_larger_than_the_corpus_is_capped_with_a_note():
    tok = WordTokenizer(vocab_size=10_000).fit(VERSE)
    distinct = len(set(split_words(Standardize()(VERSE))))
    assert tok.vocab_size == distinct + 2
    assert "10,000 asked" in tok.note and f"only {distinct}" in tok.note
    assert tok.to_dict()["note"] == tok.note


def test_round_trip_up_to_whitespace():
    tok = WordTokenizer().fit(VERSE)
    std = Standardize()(VERSE)
    assert tok.decode(tok.encode(VERSE)).split() == split_words(std)


def test_vocab_size_must_leave_room_for_a_word():
    with pytest.raises(ValueError, match="vocab_size"):
        WordTokenizer(vocab_size=2)
