import datetime

import numpy as np
import pytest

from seqlab.data import get_dataset, load_dataset
from seqlab.data.written_dates import FORMATS, TAGS, date_fields, tagged_text, written_dates_frame
from seqlab.text import PAD_ID

SMALL = {"samples": 200, "seed": 3}


@pytest.mark.parametrize(
    "date, pattern, text, tags",
    [
        (datetime.date(2005, 3, 23), "the {day} of {month} {year}",
         "the twenty-third of march two thousand and five",
         "ooooddddddddddddoooommmmmoyyyyyyyyyyyyyyyyyyyyy"),
        (datetime.date(1999, 3, 23), "{month} {number}, {year}",
         "march twenty-three, nineteen ninety-nine",
         "mmmmmoddddddddddddooyyyyyyyyyyyyyyyyyyyy"),
        (datetime.date(2023, 3, 1), "{month} {year}",
         "march twenty twenty-three",
         "mmmmmoyyyyyyyyyyyyyyyyyyy"),
        (datetime.date(2021, 5, 20), "{year}, the {day} of {month}",
         "twenty twenty-one, the twentieth of may",
         "yyyyyyyyyyyyyyyyyoooooodddddddddoooommm"),
        (datetime.date(1907, 12, 2), "{month} the {day}, {year}",
         "december the second, nineteen oh-seven",
         "mmmmmmmmoooooddddddooyyyyyyyyyyyyyyyyy"),
    ],
)  # fmt: skip
def test_every_character_is_tagged_with_its_field(date, pattern, text, tags):
    assert pattern in FORMATS
    assert tagged_text(pattern, date_fields(date)) == (text, tags)


def test_the_label_contract_ids_tags_and_masked_padding():
    data = load_dataset("written_dates", **SMALL, max_tokens=60)
    assert data.task == "label" and data.features == ("text",) and data.target == "tag"
    assert data.classes == TAGS and data.lookback == data.horizon == 60 and data.input_shape == (60,)
    assert {k: len(s) for k, s in data.splits.items()} == {"train": 160, "val": 20, "test": 20}
    frame, letters = data.frame, np.array([tag[0] for tag in TAGS])
    for name, split in data.splits.items():
        assert split.x.dtype == np.int32 and split.y.dtype == np.int32 and split.mask.dtype == bool
        assert split.x.shape == split.y.shape == split.mask.shape == (len(split), 60)
        assert (frame["split"].iloc[split.origin] == name).all()
        for row, origin in enumerate(split.origin):
            text, tags = frame["text"][origin], frame["tags"][origin]
            assert split.mask[row].sum() == len(text) == len(tags)
            assert data.tokenizer.decode(split.x[row]) == text  # standardising changed no character
            assert "".join(letters[split.y[row][split.mask[row]]]) == tags
        assert (split.x[~split.mask] == PAD_ID).all() and (split.y[~split.mask] == 0).all()  # padding: other, masked
    train_chars = set("".join(frame["text"][frame["split"] == "train"]))
    assert set(data.tokenizer.vocab[2:]) == train_chars  # fitted on the training texts only


def test_the_same_seed_gives_the_same_data_and_another_seed_other_data():
    one, again = load_dataset("written_dates", **SMALL), load_dataset("written_dates", **SMALL)
    np.testing.assert_array_equal(one.splits["test"].x, again.splits["test"].x)
    np.testing.assert_array_equal(one.splits["test"].y, again.splits["test"].y)
    other = load_dataset("written_dates", samples=200, seed=4)
    assert one.frame["text"].tolist() != other.frame["text"].tolist()


def test_the_field_of_a_prefix_is_told_only_by_what_follows():
    frame = written_dates_frame(samples=3000, seed=0)
    tags_after = {}  # the same characters, read from the start, tagged differently
    for text, tags in zip(frame["text"], frame["tags"]):
        tags_after.setdefault(text[:12], set()).add(tags[:12])
    assert {"mmmmmodddddd", "mmmmmoyyyyyy"} <= tags_after["march twenty"]  # day / year
    starts = {tags[:6] for text, tags in zip(frame["text"], frame["tags"]) if text.startswith("twenty")}
    assert starts == {"dddddd", "yyyyyy"}  # "twenty-third of ..." / "twenty twenty-one, the ..."


def test_longer_texts_are_trimmed_and_said():
    data = load_dataset("written_dates", **SMALL, max_tokens=20)
    assert data.splits["train"].mask.all(axis=1).any()
    assert "were trimmed to their first 20" in data.load_notes[0]


def test_too_few_samples_for_the_splits_is_refused():
    with pytest.raises(ValueError, match="leave a split empty: raise samples"):
        load_dataset("written_dates", samples=10, val_fraction=0.04, test_fraction=0.04)


def test_the_data_page_names_the_source_and_licence():
    info = get_dataset("written_dates")
    assert "num2words" in info.source and "LGPL" in info.licence
    assert list(info.frame().columns) == ["date", "text", "tags", "format"]


def test_a_bidirectional_gru_tags_better_than_a_forward_only_one(tmp_path):
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    accuracy = {}
    for bidirectional in (False, True):
        spec = ExperimentSpec(
            "written_dates", "gru", data_options={"samples": 1000, "embedding_dim": 8, "max_tokens": 56},
            model_options={"units": 8, "bidirectional": bidirectional}, epochs=2, batch_size=32, learning_rate=0.01,
            seed=0,
        )  # fmt: skip
        accuracy[bidirectional] = run_experiment(spec, store=RunStore(tmp_path),
                                                 savedmodel=False).metrics["model"]["accuracy"]
    # Seeds 0 and 1 gave 75 % forward-only and 95 % bidirectional: the first letters of a number need what follows.
    assert accuracy[True] > accuracy[False] + 0.1, accuracy


@pytest.fixture
def no_writing(monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("a date was written out before the check")

    monkeypatch.setattr("seqlab.data.written_dates.date_fields", never)


def test_too_many_dates_to_write_out_are_refused_before_any_is(monkeypatch, no_writing):
    monkeypatch.setenv("SEQLAB_MAX_WORK_SECONDS", "1")
    with pytest.raises(ValueError, match=r"^Writing out 20,000 dates would take about 2 s, more than 1 s "
                                         r".*SEQLAB_MAX_WORK_SECONDS.*; use fewer samples"):
        load_dataset("written_dates", samples=20_000)


def test_texts_too_large_for_memory_are_refused_before_any_is_written(monkeypatch, no_writing):
    monkeypatch.setenv("SEQLAB_MAX_DATA_MB", "1")
    with pytest.raises(ValueError, match=r"^The texts \(5,000 of 64 steps x 1 features\) would take 2 MB, more"):
        load_dataset("written_dates", samples=5000)
