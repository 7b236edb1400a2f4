"""What the three tokenisers share: fitting, specials, padding, unknowns, JSON."""

import json

import numpy as np
import pytest

from seqlab.inputs import read_text
from seqlab.text import EOS, PAD_ID, START, UNK_ID, BPETokenizer, CharTokenizer, Standardize, Tokenizer, WordTokenizer
from tests.text.conftest import TRICKY, VERSE

KINDS = {
    "char": lambda: CharTokenizer(),
    "word": lambda: WordTokenizer(vocab_size=60),
    "bpe": lambda: BPETokenizer(vocab_size=80),
}


@pytest.fixture(params=sorted(KINDS))
def fitted(request):
    return KINDS[request.param]().fit(VERSE)


def test_specials_come_first_and_encode_never_makes_them():
    tok = BPETokenizer(vocab_size=80, specials=(START, EOS)).fit(VERSE)
    assert tok.vocab[:4] == ["[PAD]", "[UNK]", START, EOS]
    ids = tok.encode(VERSE + " [EOS]")
    assert min(ids) >= 4 or UNK_ID in ids
    assert PAD_ID not in ids and 2 not in ids and 3 not in ids
    with pytest.raises(ValueError, match="leave them out"):
        CharTokenizer(specials=("[PAD]",))
    with pytest.raises(ValueError, match="distinct non-empty"):
        CharTokenizer(specials=(EOS, EOS))


def test_json_round_trip_gives_the_same_tokeniser(fitted, tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(fitted.to_dict(), indent=1, ensure_ascii=False))
    again = Tokenizer.from_dict(json.loads(path.read_text()))
    assert type(again) is type(fitted) and again.vocab == fitted.vocab and again.options() == fitted.options()
    assert again.to_dict() == fitted.to_dict()
    for text in TRICKY:
        assert again.encode(text) == fitted.encode(text)


def test_a_damaged_file_is_explained(fitted):
    data = fitted.to_dict()
    with pytest.raises(ValueError, match="Not a saved seqlab tokeniser"):
        Tokenizer.from_dict({**data, "kind": "sentencepiece"})
    with pytest.raises(ValueError, match="edited or damaged"):
        Tokenizer.from_dict({**data, "vocab": data["vocab"][1:]})
    with pytest.raises(ValueError, match="edited or damaged"):
        Tokenizer.from_dict({**data, "options": {"size": 3}})


def test_the_training_text_is_standardised_before_fitting(fitted):
    assert all(token == token.lower() for token in fitted.vocab[2:])
    assert fitted.standardize == Standardize()


@pytest.mark.parametrize("text", ["", "   \n\t ", ["", " "]])
def test_empty_training_text_is_refused(text):
    for make in KINDS.values():
        with pytest.raises(ValueError, match="training text is empty"):
            make().fit(text)


def test_not_fitted_is_explained():
    with pytest.raises(ValueError, match=r"not fitted: call fit\(training_texts\) first"):
        WordTokenizer().encode("a")


def test_empty_text_encodes_to_nothing_and_pads_to_all_padding(fitted):
    assert fitted.encode("") == [] and fitted.encode(" \n ") == []
    ids, mask = fitted.pad_and_mask([fitted.encode("")], 3)
    assert ids.tolist() == [[0, 0, 0]] and not mask.any()
    assert fitted.unknown_fraction("") == 0.0


def test_text_of_unknown_characters_is_all_unk_and_flagged(fitted):
    ids = fitted.encode("жжжж")
    assert ids and set(ids) == {UNK_ID}
    assert fitted.unknown_fraction("жжж") == 1.0
    assert 0 < fitted.unknown_fraction("to be жжж") < 1


def test_decode_drops_padding_and_refuses_ids_outside_the_vocabulary(fitted):
    ids = fitted.encode("to be")
    assert fitted.decode([*ids, PAD_ID, PAD_ID]) == fitted.decode(ids)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        fitted.decode([fitted.vocab_size])


def test_pad_and_mask_pads_at_the_end_and_trims_from_either_side():
    tok = CharTokenizer()
    ids, mask = tok.pad_and_mask([[5, 6, 7, 8], [9], []], 3)
    assert ids.dtype == np.int32 and ids.tolist() == [[5, 6, 7], [9, 0, 0], [0, 0, 0]]
    assert mask.tolist() == [[True] * 3, [True, False, False], [False] * 3]
    ids, mask = tok.pad_and_mask([[5, 6, 7, 8], [9]], 3, keep="last")
    assert ids.tolist() == [[6, 7, 8], [9, 0, 0]]
    with pytest.raises(ValueError, match="keep must be one of"):
        tok.pad_and_mask([[1]], 3, keep="middle")
    with pytest.raises(ValueError, match="length"):
        tok.pad_and_mask([[1]], 0)


def test_non_utf8_text_is_the_input_gate_s_job():
    with pytest.raises(ValueError, match="not UTF-8"):
        read_text(b"caf\xe9 \xff\xfe\x81", what="corpus")
    assert CharTokenizer().fit(read_text("to be".encode(), what="corpus")).vocab[2:] == [" ", "b", "e", "o", "t"]
