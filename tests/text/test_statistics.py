import collections

import numpy as np
import pytest

from seqlab.text import BPETokenizer, CharTokenizer, Standardize, WordTokenizer
from seqlab.text.bpe import merge_pair, split_chunks
from seqlab.text.statistics import (
    bpe_prefix,
    char_text,
    example_sentence,
    merge_counts,
    text_statistics,
    token_pieces,
    unseen_shares,
    vocabulary_sweep,
)
from tests.text.conftest import VERSE

RAW = Standardize(lowercase=False, strip_punctuation=False, collapse_whitespace=False)  # the datasets' defaults


@pytest.fixture(scope="module")
def texts(pydoc_text):
    """A training and a held-out slice of pydoc, cut like the datasets (first 90 %, last 10 %)."""
    text = pydoc_text[:60_000]
    return text[:54_000], text[54_000:]


def test_text_statistics_counts_words_lines_and_distinct_ones():
    stats = text_statistics("The cat, the cat.\n\nA dog!\n")
    assert stats.characters == 26 and stats.lines == 2
    assert stats.words == 6 and stats.distinct_words == 5  # punctuation marks are not words; "The" is not "the"
    assert stats.words_seen_once == 4 and stats.distinct_characters == len(set("The cat, the cat.\n\nA dog!\n"))
    assert stats.characters_per_word == pytest.approx(16 / 6) and stats.words_per_line == pytest.approx(3)
    assert np.isnan(text_statistics("").words_per_line)


def test_unseen_shares_count_characters_and_words_missing_from_training():
    chars, words = unseen_shares("the cat sat", "the dog sat")
    assert chars == pytest.approx(3 / 11)  # "d", "o" and "g"
    assert words == pytest.approx(1 / 3)
    assert unseen_shares("abc", "") == (0.0, 0.0)


def test_char_text_gives_training_back_and_keeps_unseen_characters_unknown_to_every_tokeniser():
    train, held_out = "to be or not to be\n" * 5, "to bé ôr nöt"  # unseen letters
    char = CharTokenizer(standardize=RAW).fit(train)
    assert char_text(char, char.encode(train)) == train
    decoded = char_text(char, char.encode(held_out))
    assert len(decoded) == len(held_out) and decoded[:4] == "to b" and decoded[5] == " "
    for tokenizer in (char, WordTokenizer(standardize=RAW).fit(train), BPETokenizer(30, standardize=RAW).fit(train)):
        assert tokenizer.encode(decoded) == tokenizer.encode(held_out)  # same ids, [UNK] where the real text has them


def test_example_sentence_is_a_line_of_the_text_of_readable_length():
    text = "short\n" + "x " * 80 + "\nThe quick brown fox jumps over the lazy dog again\nmore"
    assert example_sentence(text) == "The quick brown fox jumps over the lazy dog again"
    assert example_sentence("tiny") == "tiny"


@pytest.mark.parametrize("tokenizer", [CharTokenizer(standardize=RAW), BPETokenizer(60, standardize=RAW)])
def test_char_and_bpe_pieces_cover_the_text_and_show_the_unknown_character(tokenizer):
    tokenizer.fit(VERSE)
    sentence = "To be, or not ☃ to be"
    pieces = token_pieces(tokenizer, sentence)
    assert "".join(p.text for p in pieces) == sentence
    assert [p.token_id for p in pieces] == tokenizer.encode(sentence)
    assert [p.text for p in pieces if not p.known] == ["☃"]


def test_word_pieces_are_the_words_with_unknown_ones_marked():
    tokenizer = WordTokenizer(standardize=Standardize()).fit(VERSE)
    pieces = token_pieces(tokenizer, "To be, or not to  DANCE")
    assert [p.text for p in pieces] == ["to", "be", ",", "or", "not", "to", "dance"]
    assert [p.known for p in pieces] == [True] * 6 + [False]
    assert token_pieces(tokenizer, "") == []


@pytest.mark.parametrize("size", [97, 150, 400])
def test_a_bpe_prefix_is_the_tokeniser_trained_to_that_size(texts, size):
    big = BPETokenizer(600, standardize=RAW).fit(texts[0])
    direct = BPETokenizer(size, standardize=RAW).fit(texts[0])
    prefix = bpe_prefix(big, size)
    assert prefix.vocab == direct.vocab and prefix.merges == direct.merges
    assert prefix.encode(texts[1]) == direct.encode(texts[1])


def test_a_bpe_prefix_below_the_alphabet_is_refused():
    tokenizer = BPETokenizer(40, standardize=RAW).fit(VERSE)
    with pytest.raises(ValueError, match="smaller than the alphabet"):
        bpe_prefix(tokenizer, 5)


def test_sweep_oov_falls_as_the_word_vocabulary_grows_and_matches_fitted_tokenisers(texts):
    train, held_out = texts
    sweep = vocabulary_sweep(train, held_out, RAW, sizes=(50, 200, 1_000), bpe_max=600)
    word = sweep[sweep.tokenizer == "word"]
    assert list(word.vocab_size)[:3] == [50, 200, 1_000]
    assert np.all(np.diff(word.oov_rate) < 0)  # more words known, fewer [UNK]
    for row in word.itertuples():
        fitted = WordTokenizer(vocab_size=row.vocab_size, standardize=RAW).fit(train)
        assert row.oov_rate == pytest.approx(fitted.unknown_fraction(held_out))
    assert word.tokens_per_line.nunique() == 1  # a word is one token whatever the vocabulary


def test_sweep_bpe_shortens_sequences_and_knows_every_seen_character(texts):
    train, held_out = texts
    sweep = vocabulary_sweep(train, held_out, RAW, sizes=(200, 400), bpe_max=600)
    char = sweep[sweep.tokenizer == "char"]
    bpe = sweep[sweep.tokenizer == "bpe"]
    assert len(char) == 1 and bpe.vocab_size.iloc[0] == char.vocab_size.iloc[0]  # BPE starts from the alphabet
    assert bpe.tokens_per_line.iloc[0] == pytest.approx(char.tokens_per_line.iloc[0])
    assert np.all(np.diff(bpe.tokens_per_line) < 0) and list(bpe.vocab_size)[1:] == [200, 400, 600]
    unseen = unseen_shares(train, held_out)[0]
    assert char.oov_rate.iloc[0] == pytest.approx(unseen)
    assert char.tokens_per_100_characters.iloc[0] == pytest.approx(100)
    lines = sum(1 for line in held_out.splitlines() if line.strip())
    last = BPETokenizer(600, standardize=RAW).fit(train)
    assert bpe.tokens_per_line.iloc[-1] == pytest.approx(len(last.encode(held_out)) / lines)


def _pair_counts(chunks: dict[str, list[str]], weights: collections.Counter) -> collections.Counter:
    counts = collections.Counter()
    for chunk, symbols in chunks.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += weights[chunk]
    return counts


def test_merge_table_lists_the_tokenisers_merges_in_order_with_the_winning_counts():
    text = VERSE * 3
    tokenizer = BPETokenizer(70, standardize=RAW).fit(text)
    table = merge_counts(tokenizer, text, first=10)
    assert list(table.columns) == ["rank", "left", "right", "token", "count"]
    assert list(zip(table.left, table.right)) == tokenizer.merges[:10] and list(table["rank"]) == list(range(1, 11))
    assert list(table.token) == [a + b for a, b in tokenizer.merges[:10]]
    # Replayed plainly: at its turn every merge was the most frequent pair, with the count shown.
    weights = collections.Counter(split_chunks(text))
    chunks = {chunk: list(chunk) for chunk in weights}
    for row in table.itertuples():
        counts = _pair_counts(chunks, weights)
        assert row.count == counts[(row.left, row.right)] == max(counts.values())
        chunks = {chunk: merge_pair(symbols, (row.left, row.right)) for chunk, symbols in chunks.items()}


def test_merge_table_of_a_tokeniser_without_merges_is_empty():
    tokenizer = BPETokenizer(30, standardize=RAW).fit("abcdefg")
    assert merge_counts(tokenizer, "abcdefg").empty
