import numpy as np
import pytest

from seqlab.data.text_pairs import PAIR_TEXT_DEFAULTS, pair_data, random_split
from seqlab.text.tokenizer import EOS, PAD_ID, START, UNK_ID

OPTIONS = {**PAIR_TEXT_DEFAULTS, "tokenizer": "char"}
SOURCES = ["ab", "ba", "abc", "cab", "aab", "bba", "ca", "ac", "bc", "cb"]
TARGETS = [s.upper() for s in SOURCES]


def pairs(sources=SOURCES, targets=TARGETS, split=("train",) * 8 + ("val", "test"), **options):
    return pair_data("toy", sources, targets, {**OPTIONS, **options}, split=split)


def test_the_translate_contract():
    data = pairs()
    assert data.task == "translate" and data.features == ("source",) and data.target == "target"
    assert data.units == {} and data.classes == () and list(data.frame.columns[:2]) == ["source", "target"]
    assert data.target_tokenizer.vocab[:4] == ["[PAD]", "[UNK]", START, EOS]
    assert data.lookback == 3 and data.horizon == 4  # the longest source; the longest target + its EOS
    eos = data.target_tokenizer.special_id(EOS)
    for split in data.splits.values():
        assert split.x.shape == split.mask.shape == (len(split), 3) and split.x.dtype == np.int32
        assert split.y.shape == (len(split), 4) and split.y.dtype == np.int32
        assert ((split.x != PAD_ID) == split.mask).all()  # padding masked, at the end
        for row, origin in zip(split.y, split.origin):
            target = data.frame["target"][origin]
            assert (row == eos).sum() == 1 and row[len(target)] == eos and (row[len(target) + 1 :] == 0).all()
            assert data.target_tokenizer.decode(row[: len(target)]) == target
    assert data.tokenizer.decode(data.splits["test"].x[0]) == "cb"


def test_tokenisers_are_fitted_on_the_training_pairs_only():
    # "z" and "Z" occur only in the test pair: unknown to both tokenisers.
    data = pairs(sources=[*SOURCES[:9], "zb"], targets=[*TARGETS[:9], "ZB"])
    assert "z" not in data.tokenizer.vocab and "Z" not in data.target_tokenizer.vocab
    test = data.splits["test"]
    assert test.x[0, 0] == UNK_ID and test.y[0, 0] == UNK_ID and test.mask[0, :2].all()


def test_long_sources_are_trimmed_and_long_targets_dropped_with_notes():
    data = pairs(max_source_tokens=2, max_target_tokens=2)
    kept = data.frame["source"].tolist()
    assert kept == [s for s in SOURCES if len(s) <= 2] and data.horizon == 3 and data.lookback == 2
    assert any("Dropped 4 of 10 pairs whose target is longer than max_target_tokens = 2" in n for n in data.notes)
    trimmed = pairs(max_source_tokens=2)
    assert trimmed.lookback == 2 and trimmed.splits["train"].mask.all()
    assert any("4 of 10 sources are longer than max_source_tokens = 2" in n for n in trimmed.notes)


def test_pairs_with_an_empty_side_are_dropped_with_a_note():
    data = pair_data("toy", [*SOURCES, "  "], [*TARGETS, "X"], OPTIONS)
    assert len(data.frame) == 10 and any("Dropped 1 of 11 pairs with an empty side" in n for n in data.notes)


def test_a_random_split_is_seeded_and_every_pair_is_in_one_split():
    many = [f"s{i}" for i in range(40)]
    a, b = (pair_data("toy", many, many, {**OPTIONS, "seed": 3}) for _ in range(2))
    assert [len(a.splits[s]) for s in ("train", "val", "test")] == [32, 4, 4]
    assert sorted(np.concatenate([s.origin for s in a.splits.values()])) == list(range(40))
    assert (a.splits["test"].origin == b.splits["test"].origin).all()
    names = random_split(40, 0.1, 0.1, 4)
    assert (names == "test").sum() == 4 and not (names == random_split(40, 0.1, 0.1, 3)).all()


def test_word_tokenisers_on_both_sides():
    data = pair_data("w", ["one two", "two three"] * 10, ["eins zwei", "zwei drei"] * 10,
                     {**OPTIONS, "tokenizer": "word"})  # fmt: skip
    assert data.lookback == 2 and data.horizon == 3 and "zwei" in data.target_tokenizer.vocab


@pytest.mark.parametrize(
    "sources, targets, split, message",
    [
        (["a"], ["b", "c"], None, "1 sources but 2 targets"),
        (["", " "], ["b", "c"], None, "Every one of the 2 pairs has an empty side"),
        (["\u200b", "a"], ["b", "\u2800\ufeff"], None, "Every one of the 2 pairs has an empty side"),  # invisible
        (["a", "b"], ["c", "d"], None, r"Too few pairs: 2 pairs leave the val and test split\(s\) empty"),
        (["a", "b"], ["c", "d"], ["train", "exam"], "split must name one of"),
    ],
)
def test_bad_pairs_are_refused_with_the_reason(sources, targets, split, message):
    with pytest.raises(ValueError, match=message):
        pair_data("toy", sources, targets, OPTIONS, split=split)
