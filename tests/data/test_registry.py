import numpy as np
import pandas as pd
import pytest

from seqlab.data import get_dataset, list_datasets, load_dataset


def test_registry_lists_forecast_datasets_with_provenance():
    names = {d.name for d in list_datasets("forecast")}
    assert {"energy", "sine"} <= names
    for info in list_datasets():
        assert info.description and info.source and info.licence and info.title


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(ValueError, match="valid datasets: .*energy"):
        get_dataset("nope")
    with pytest.raises(ValueError, match="valid options: .*lookback"):
        load_dataset("sine", lookbak=3)
    with pytest.raises(ValueError, match="valid tasks"):
        list_datasets("dance")


def test_energy_is_the_lecture_example():
    data = load_dataset("energy")
    frame = data.frame
    assert len(frame) == 17520
    assert isinstance(frame.index, pd.DatetimeIndex)
    assert frame.index[0] == pd.Timestamp("2014-01-01 00:00")
    assert frame.index[1] - frame.index[0] == pd.Timedelta("30min")
    assert data.features == ("Demand", "Temperature", "WorkDay")
    assert data.units["Demand"] == "GW"
    assert (data.lookback, data.horizon) == (96, 48)
    assert data.seasons == {"day": 48, "week": 336}
    assert set(np.unique(frame["WorkDay"])) == {0.0, 1.0}
    assert "unit" in data.summary().columns


def test_sine_is_seeded_and_options_reach_the_generator():
    a = load_dataset("sine", seed=1, length=300, lookback=20, horizon=5)
    b = load_dataset("sine", seed=1, length=300, lookback=20, horizon=5)
    np.testing.assert_array_equal(a.frame["y"], b.frame["y"])
    assert len(a.frame) == 300 and a.splits["train"].x.shape[1:] == (20, 1)
    assert not np.array_equal(a.frame["y"], load_dataset("sine", seed=2, length=300, lookback=20).frame["y"])


@pytest.mark.parametrize(
    "name, options, message",
    [
        ("sine", {"length": 1_000_000, "lookback": 2000}, "The windows .* would take 7,652 MB, more than 512 MB"),
        ("adding", {"samples": 1_000_000, "length_T": 2000}, "The sequences .* would take"),
        ("copy", {"length": 1000, "delay": 10}, "Sequences of 2,010 steps are longer than 2,000"),
        ("sine", {"length": 10**7}, r"length must lie in \[10, 1000000\] for dataset 'sine'"),
        ("mackey_glass", {"length": 10**6}, r"length must lie in \[10, 100000\]"),
        ("copy", {"symbols": 27}, r"symbols must lie in \[2, 26\]"),
        # Generated pairs and texts: refused from their options, before any is made.
        ("numbers_en_de", {"last": 10**9}, "Writing out 1,000,000,001 numbers .* more than 60 s"),
        ("toy_pairs", {"samples": 10**6, "max_length": 1000}, r"The pairs .* would take 7,633 MB, more than 512 MB"),
        ("written_dates", {"samples": 10**6}, "Writing out 1,000,000 dates would take about 75 s, more than 60 s"),
    ],
)
def test_requests_that_would_exhaust_the_machine_are_refused_at_once(name, options, message):
    with pytest.raises(ValueError, match=message):
        load_dataset(name, **options)
