from seqlab.text import CharTokenizer, Standardize
from tests.text.conftest import TRICKY, VERSE


def test_vocabulary_is_the_seen_characters_in_code_point_order():
    tok = CharTokenizer().fit(["ba", "c\na"])
    assert tok.vocab == ["[PAD]", "[UNK]", "\n", "a", "b", "c"]
    assert tok.encode("cab") == [5, 3, 4]
    assert tok.tokens("Cab") == ["c", "a", "b"]


def test_round_trip_is_exact_after_standardisation():
    tok = CharTokenizer(Standardize(lowercase=False, collapse_whitespace=False)).fit(TRICKY)
    for text in TRICKY:
        assert tok.decode(tok.encode(text)) == text


def test_unknown_characters_decode_as_unk():
    tok = CharTokenizer().fit(VERSE)
    assert tok.decode(tok.encode("to be!")) == "to be[UNK]"
