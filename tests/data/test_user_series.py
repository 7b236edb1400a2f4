"""The csv dataset: the user's own series, its time axis, its missing values and every refusal."""

import hashlib
import io

import numpy as np
import pandas as pd
import pytest

from seqlab.data import load_dataset
from seqlab.data.pinned_file import file_options
from seqlab.data.user_series import store_user_csv

ROWS = 400


def hourly(rows: int = ROWS) -> pd.DataFrame:
    """An hourly load with a daily cycle and a temperature input, as a user's file holds it."""
    steps = np.arange(rows)
    return pd.DataFrame({
        "Date": pd.date_range("2014-03-01", periods=rows, freq="h").strftime("%Y-%m-%d %H:%M"),
        "Load": 10 + np.sin(2 * np.pi * steps / 24) + 0.01 * steps,
        "Temp": 15 + 5 * np.cos(2 * np.pi * steps / 24),
        "Holiday": (steps // 24 % 7 == 6).astype(int),
    })  # fmt: skip


@pytest.fixture
def write(tmp_path):
    def _write(frame: pd.DataFrame, name: str = "load.csv"):
        path = tmp_path / name
        frame.to_csv(path, index=False)
        return path

    return _write


def load(path, **options):
    return load_dataset("csv", **file_options(path), **options)


def test_a_good_file_loads_with_its_columns_seasons_and_known_inputs(write):
    data = load(write(hourly()), time="Date", target="Load", exogenous="Temp, Holiday", known="Holiday",
                lookback=24, horizon=6, unit="MW")  # fmt: skip
    assert data.features == ("Load", "Temp", "Holiday") and data.known == ("Holiday",)
    assert isinstance(data.frame.index, pd.DatetimeIndex) and data.frame.index.name == "Date"
    assert data.seasons == {"day": 24, "week": 168}  # inferred from the hourly step
    assert data.units == {"Load": "MW", "Temp": "", "Holiday": ""} and data.notes == ()
    test = data.splits["test"]
    assert test.future.shape == (len(test), 6, 1)
    o = test.origin[0]
    np.testing.assert_allclose(test.future[0, :, 0], data.frame["Holiday"].to_numpy()[o:o + 6])
    assert data.options["target"] == "Load" and data.options["sha256"]


def test_interpolation_report_is_exact(write):
    frame = hourly()
    frame.loc[[10, 11], "Load"] = np.nan
    frame.loc[200, "Load"] = np.inf
    frame.loc[50, "Temp"] = np.nan
    data = load(write(frame), time="Date", target="Load", exogenous="Temp")
    assert data.notes == (
        "Filled 3 missing Load value(s) (1 of them infinite) by linear interpolation in time "
        "(at 2014-03-01 10:00, 2014-03-01 11:00, 2014-03-09 08:00).",
        "Filled 1 missing Temp value(s) by linear interpolation in time (at 2014-03-03 02:00).",
    )
    load_values, original = data.frame["Load"].to_numpy(), hourly()["Load"].to_numpy()
    # The straight line between rows 9 and 12, in time.
    np.testing.assert_allclose(load_values[10:12], original[9] + (original[12] - original[9]) * np.array([1, 2]) / 3)
    np.testing.assert_allclose(load_values[200], (original[199] + original[201]) / 2)


def test_drop_policy_reports_the_rows_and_the_gaps_they_leave(write):
    frame = hourly()
    frame.loc[[10, 11, 12, 13], "Load"] = None
    frame.loc[300, "Temp"] = np.inf
    data = load(write(frame), time="Date", target="Load", exogenous="Temp", nan_policy="drop")
    assert len(data.frame) == ROWS - 5
    assert data.notes == (
        "Dropped 5 row(s) with missing or infinite values (Load: 4, Temp: 1), at 2014-03-01 10:00, "
        "2014-03-01 11:00, 2014-03-01 12:00 and 2 more.",
        "Date has 2 gap(s) in its 1 h steps, 5 step(s) missing in all (the largest 5 h, from 2014-03-01 09:00 "
        "to 2014-03-01 14:00). Windows run across a gap as if its rows were consecutive: add the missing "
        "times to the file if that matters.",
    )


def test_irregular_sampling_is_detected(write):
    frame = hourly()
    minutes = np.random.default_rng(0).integers(40, 80, ROWS).cumsum()
    frame["Date"] = (pd.Timestamp("2014-03-01") + pd.to_timedelta(minutes, unit="min")).strftime("%Y-%m-%d %H:%M")
    (note,) = load(write(frame), time="Date", target="Load").notes
    assert note.startswith("Date is irregularly sampled: ") and "resample the file to a regular step" in note


def test_rows_out_of_order_are_sorted_and_said_so(write):
    data = load(write(hourly().iloc[::-1]), time="Date", target="Load")
    assert data.notes == ("Sorted the rows by Date (the file is not in time order).",)
    assert data.frame.index.is_monotonic_increasing


@pytest.mark.parametrize(
    ("dates", "seasons"),
    [
        (pd.date_range("2014-01-01", periods=ROWS, freq="D").strftime("%d/%m/%Y"), {"week": 7}),  # day first
        (pd.date_range("1980-01-31", periods=ROWS, freq="ME").strftime("%Y-%m-%d"), {"year": 12}),
        (np.arange(1600, 1600 + ROWS), {}),  # years as numbers: no season known
    ],
)
def test_seasons_follow_the_step(write, dates, seasons):
    frame = hourly().assign(Date=dates)
    data = load(write(frame), time="Date", target="Load")
    assert data.seasons == seasons and data.notes == ()
    assert load(write(frame), time="Date", target="Load", season=5).seasons == {"season": 5}


def test_without_a_time_column_the_rows_are_numbered(write):
    data = load(write(hourly().drop(columns="Date")), target="Load", exogenous="Temp")
    assert list(data.frame.index[:3]) == [1, 2, 3] and data.frame.index.name == "row" and data.seasons == {}


def _set(column, rows, value):
    def change(frame):
        frame[column] = frame[column].astype(object)
        frame.loc[rows, column] = value
        return frame

    return change


@pytest.mark.parametrize(
    ("change", "options", "message"),
    [
        (_set("Date", 5, "2014-13-45"), {},
         "Time column 'Date' cannot be read as dates: row 6 holds '2014-13-45'"),
        (_set("Date", 7, "2014-03-01 06:00"), {}, "holds 2014-03-01 06:00 more than once (rows 7, 8)"),
        (_set("Date", 3, ""), {}, "Time column 'Date' is empty on row 4"),
        (_set("Load", 3, "n/a?"), {}, "Column 'Load' (the target) is not numeric: row 4 holds 'n/a?'"),
        (_set("Temp", 9, "warm"), {"exogenous": "Temp"}, "(the exogenous input) is not numeric: row 10"),
        (_set("Load", slice(None), 7.0), {}, "The target 'Load' is constant (every value is 7)"),
        (_set("Load", 0, None), {}, "1 missing Load value(s) at the start or end of the series (at 2014-03-01)"),
        (_set("Load", slice(None), None), {}, "Column(s) ['Load'] hold no number at all"),
        (None, {"lookback": 80}, "Too few rows: the series has 400 rows after loading, so its shortest split"),
        (None, {"horizon": 61, "lookback": 1}, "The horizon H = 61 steps is longer than the test split (60 of 400"),
        (None, {"target": ""}, "Choose the target column to forecast"),
        (None, {"target": "Demand"}, "target: column(s) ['Demand'] are not in the file"),
        (None, {"exogenous": "Temp", "known": "Holiday"}, "known: column(s) ['Holiday'] are not exogenous"),
        (None, {"exogenous": "Load"}, "The target 'Load' is also listed as exogenous"),
        (None, {"exogenous": "Temp,Temp"}, "exogenous names a column more than once"),
        (None, {"nan_policy": "zero"}, "nan_policy"),
    ],
)
def test_bad_input_is_a_value_error_saying_what_to_do(write, change, options, message):
    frame = hourly()
    if change is not None:
        frame = change(frame)
    with pytest.raises(ValueError) as caught:
        load(write(frame), **{"time": "Date", "target": "Load", **options})
    assert message in str(caught.value)


def test_a_file_changed_after_its_spec_is_refused_by_its_hash(write):
    path = write(hourly())
    options = file_options(path)
    write(hourly().assign(Load=lambda f: f.Load + 1))
    with pytest.raises(ValueError, match="CSV file 'load.csv' changed since this spec was made"):
        load_dataset("csv", **options, time="Date", target="Load")


def test_no_file_says_how_to_give_one():
    with pytest.raises(ValueError, match="upload a .csv on the Data or Train page, or give --dataset csv:PATH"):
        load_dataset("csv", target="Load")


def test_an_upload_is_checked_then_kept_under_its_hash(tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_CACHE", str(tmp_path / "cache"))
    content = hourly().to_csv(index=False).encode()
    options = store_user_csv(io.BytesIO(content), "../secret/load.csv")
    digest = hashlib.sha256(content).hexdigest()
    assert options == {"path": str(tmp_path / "cache" / "uploads" / f"{digest}.csv"), "sha256": digest,
                       "file_name": "load.csv"}  # fmt: skip
    assert load_dataset("csv", **options, time="Date", target="Load").options["file_name"] == "load.csv"
    with pytest.raises(ValueError, match="line 3, has a different number of values"):
        store_user_csv(io.BytesIO(b"a,b\n1,2\n3\n"), "ragged.csv")


def test_a_good_file_trains_end_to_end_with_arx(write, tmp_path):
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    frame = hourly()
    frame.loc[100, "Load"] = np.nan
    options = {**file_options(write(frame)), "time": "Date", "target": "Load", "exogenous": "Temp",
               "lookback": 24, "horizon": 6, "unit": "MW"}  # fmt: skip
    run = run_experiment(ExperimentSpec("csv", "arx", options, seed=0), store=RunStore(tmp_path / "runs"),
                         savedmodel=False)
    assert run.status == "completed" and run.spec["data_options"]["sha256"] == options["sha256"]
    assert run.meta.target == "Load" and run.meta.units["Load"] == "MW"
    model, naive = run.metrics["model"], run.metrics["baselines"]["naive"]
    assert np.isfinite(model["mae"]) and model["mae"] < naive["mae"]  # the daily cycle is linear to learn
