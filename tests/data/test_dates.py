import datetime

import pytest

from seqlab.data import load_dataset
from seqlab.data.dates import CHOICES, dates_frame


def test_every_source_reads_as_one_date_only():
    frame = dates_frame(20_000, seed=1)
    assert frame.groupby("source")["date"].nunique().max() == 1  # no "3/4/24" meaning two dates
    assert set(zip(frame["locale"], frame["format"])) == set(CHOICES)
    assert frame["date"].min() >= "1950-01-01" and frame["date"].max() <= "2049-12-31"


def test_written_forms_of_one_date():
    from babel.dates import format_date

    day = datetime.date(2024, 3, 21)
    assert format_date(day, "short", locale="en_US") == "3/21/24"
    assert format_date(day, "long", locale="de_DE") == "21. März 2024"


def test_a_test_date_is_never_seen_in_training():
    data = load_dataset("dates", samples=400, seed=2)
    dates = {s: set(data.frame["target"][data.splits[s].origin]) for s in data.splits}
    assert not dates["test"] & dates["train"] and not dates["val"] & dates["train"] and dates["test"]
    assert data.horizon == 11 and data.target_tokenizer.kind == "char"  # "2024-03-21" + EOS
    again = load_dataset("dates", samples=400, seed=2)
    assert again.frame["source"].tolist() == data.frame["source"].tolist()


@pytest.fixture
def no_writing(monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("a date was written out before the check")

    monkeypatch.setattr("babel.dates.format_date", never)


@pytest.mark.parametrize(
    "limit, samples, message",
    [
        ("SEQLAB_MAX_WORK_SECONDS", 40_000, r"^Writing out 40,000 dates would take about 2 s, more than 1 s "
                                            r"\(.*SEQLAB_MAX_WORK_SECONDS.*\); use fewer samples"),
        ("SEQLAB_MAX_DATA_MB", 2000, r"^2,000 dates written out would take 3 MB, more than 1 MB "
                                     r"\(.*SEQLAB_MAX_DATA_MB.*\); use fewer samples"),
    ],
)
def test_too_many_dates_are_refused_before_any_is_written(monkeypatch, no_writing, limit, samples, message):
    monkeypatch.setenv(limit, "1")
    with pytest.raises(ValueError, match=message):
        load_dataset("dates", samples=samples)
