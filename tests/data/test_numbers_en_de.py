import numpy as np
import pytest

from seqlab.data import get_dataset, load_dataset
from seqlab.data.numbers_en_de import numbers_frame


def test_german_says_the_units_before_the_tens():
    frame = numbers_frame(0, 1234).set_index("number")
    assert frame.loc[21, "source"] == "twenty-one" and frame.loc[21, "target"] == "einundzwanzig"
    assert frame.loc[0, "target"] == "null" and frame.loc[99, "target"] == "neunundneunzig"
    assert frame.loc[1234, "target"] == "eintausendzweihundertvierunddreißig"


def test_no_test_or_validation_number_is_seen_in_training():
    data = load_dataset("numbers_en_de", last=399)
    numbers = {s: set(data.frame["number"][data.splits[s].origin]) for s in data.splits}
    assert not numbers["test"] & numbers["train"] and not numbers["val"] & numbers["train"]
    assert len(numbers["test"]) == len(numbers["val"]) == 40 and len(numbers["train"]) == 320
    assert data.tokenizer.kind == data.target_tokenizer.kind == "char"
    test = data.splits["test"]
    decoded = [data.target_tokenizer.decode(row[row > 3]) for row in test.y]
    assert decoded == data.frame["target"][test.origin].tolist()


def test_a_range_of_numbers_and_the_registry_entry():
    data = load_dataset("numbers_en_de", first=100, last=199, seed=1)
    assert data.frame["number"].min() == 100 and len(data.frame) == 100 and data.options["first"] == 100
    assert np.array_equal(np.sort(data.frame["number"]), np.arange(100, 200))
    assert get_dataset("numbers_en_de").task == "translate"


def test_a_range_too_long_to_write_out_is_refused_before_any_number_is(monkeypatch):
    import num2words

    def never(*args, **kwargs):
        raise AssertionError("a number was written out before the check")

    monkeypatch.setattr(num2words, "num2words", never)
    monkeypatch.setenv("SEQLAB_MAX_WORK_SECONDS", "1")
    with pytest.raises(ValueError, match=r"^Writing out 12,000 numbers in words would take about 3 s, more than 1 s "
                                         r"\(.*SEQLAB_MAX_WORK_SECONDS.*\); choose a shorter range from first to last"):
        load_dataset("numbers_en_de", first=0, last=11_999)
