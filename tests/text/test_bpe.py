import pytest

from seqlab.text import BPETokenizer, Standardize
from seqlab.text.bpe import merge_pair, split_chunks
from tests.text.conftest import TRICKY, VERSE


def test_chunks_keep_one_leading_space_and_join_back_exactly():
    text = "the king,  the\nsea... ok"
    assert split_chunks(text) == ["the", " king", ",", "  ", "the", "\n", "sea", "...", " ok"]
    assert "".join(split_chunks(text)) == text


def test_merges_are_the_most_frequent_pairs_in_the_order_learned():
    # chunks: "low" x3, " lower" x3, " lowest" x3 -> (l,o) and (o,w) 9 times each: the tie goes to (l,o).
    # Then (" ", low) and (low, e) 6 times each: the tie goes to (" ", "low").
    tok = BPETokenizer(vocab_size=13).fit(["low lower lowest"] * 3)
    alphabet = [" ", "e", "l", "o", "r", "s", "t", "w"]
    assert tok.vocab[2:10] == alphabet
    assert tok.merges == [("l", "o"), ("lo", "w"), (" ", "low")]
    assert tok.vocab[10:] == ["lo", "low", " low"] and tok.vocab_size == 13


def test_merge_pair_goes_left_to_right_without_overlaps():
    assert merge_pair(list("aaaa"), ("a", "a")) == ["aa", "aa"]
    assert merge_pair(list("aaa"), ("a", "a")) == ["aa", "a"]


def test_encode_applies_each_merge_once_in_the_order_learned(pydoc_text):
    tok = BPETokenizer(vocab_size=300).fit(pydoc_text)
    sample = Standardize()(pydoc_text[:20_000])
    expected = []
    for chunk in split_chunks(sample):  # the definition, written plainly
        symbols = list(chunk)
        for pair in tok.merges:
            symbols = merge_pair(symbols, pair)
        expected += [tok.vocab.index(s) for s in symbols]
    assert tok.encode(sample) == expected


def test_round_trip_is_exact_after_standardisation(pydoc_text):
    tok = BPETokenizer(vocab_size=500).fit(pydoc_text)
    std = Standardize()(pydoc_text)
    ids = tok.encode(pydoc_text)
    assert tok.decode(ids) == std and len(ids) < len(std) / 2
    for text in TRICKY:
        assert tok.decode(tok.encode(text)).replace("[UNK]", "?") == "".join(
            c if c in tok.vocab else "?" for c in Standardize()(text)
        )


def test_training_on_a_million_characters_reaches_the_vocabulary_size(pydoc_text):
    corpus = pydoc_text * 2  # ~0.93 M characters
    tok = BPETokenizer(vocab_size=2000).fit(corpus)
    assert tok.vocab_size == 2000 and tok.note is None


def test_a_vocabulary_smaller_than_the_alphabet_is_refused():
    expected = r"smaller than the training text's alphabet \(4 characters\) plus 2 .*at least 6"
    with pytest.raises(ValueError, match=expected):
        BPETokenizer(vocab_size=4).fit("abc abc")


def test_a_vocabulary_larger_than_the_corpus_allows_stops_with_a_note():
    tok = BPETokenizer(vocab_size=5000).fit(VERSE)
    assert tok.vocab_size < 5000 and "5,000 asked" in tok.note and f"holds {tok.vocab_size:,} tokens" in tok.note


def test_a_merge_never_makes_a_special_token():
    tok = BPETokenizer(vocab_size=40, specials=("ab",)).fit("ab ab ab abc abc")
    assert ("a", "b") not in tok.merges
    assert tok.encode("ab") == [tok.vocab.index("a"), tok.vocab.index("b")]


def test_unknown_characters_stay_unk_and_never_merge():
    tok = BPETokenizer(vocab_size=20).fit(["the theme"] * 4)
    assert ("h", "e") in tok.merges
    assert tok.tokens("heжhe") == ["he", "[UNK]", "he"]
    assert tok.tokens("hжe") == ["h", "[UNK]", "e"]
