"""The lecture's real forecasting datasets: shapes, units, real time indexes, splits, the DAX alignment."""

import numpy as np
import pandas as pd
import pytest

from seqlab.data import get_dataset, load_dataset
from seqlab.data.dax import FIRST_DAY, dow_jones
from seqlab.data.r_tables import r_table
from seqlab.forecasting.metrics import near_zero
from seqlab.training import ExperimentSpec, run_experiment

# name -> (rows, columns, freq, first time, units, (lookback, horizon), seasons)
EXPECTED = {
    "taylor": (4032, ["Load"], "30min", "2000-06-05 00:00", {"Load": "MW"}, (336, 48), {"day": 48, "week": 336}),
    "elecdaily": (365, ["Demand", "Temperature", "WorkDay"], "D", "2014-01-01",
                  {"Demand": "GW", "Temperature": "°C", "WorkDay": "0/1"}, (28, 7), {"week": 7}),
    "dax": (1860, ["DAX", "SMI", "CAC", "FTSE", "DJIA"], "B", FIRST_DAY,
            dict.fromkeys(["DAX", "SMI", "CAC", "FTSE", "DJIA"], "index points"), (60, 5), {"week": 5}),
    "sunspots": (3177, ["Sunspots"], "MS", "1749-01-01", {"Sunspots": "count"}, (120, 12), {"cycle": 132}),
    "airpassengers": (144, ["Passengers"], "MS", "1949-01-01", {"Passengers": "thousands of passengers"},
                      (24, 12), {"year": 12}),
}


@pytest.mark.parametrize("name", EXPECTED)
def test_loads_with_its_shape_units_and_a_real_time_index(name):
    rows, columns, freq, first, units, (lookback, horizon), seasons = EXPECTED[name]
    info = get_dataset(name)
    assert info.task == "forecast" and info.source and info.licence and info.units == units
    data = load_dataset(name)
    frame = data.frame
    assert frame.shape == (rows, len(columns)) and list(data.features) == columns
    assert isinstance(frame.index, pd.DatetimeIndex) and frame.index.freqstr == freq
    assert frame.index[0] == pd.Timestamp(first) and frame.index.is_monotonic_increasing and frame.index.is_unique
    assert np.isfinite(frame.to_numpy()).all()
    assert data.units == units and data.seasons == seasons
    assert (data.lookback, data.horizon) == (lookback, horizon)
    assert data.input_shape == (lookback, len(columns)) and data.splits["test"].y.shape[1] == horizon


@pytest.mark.parametrize("name", EXPECTED)
def test_splits_are_chronological_and_targets_stay_inside(name):
    data = load_dataset(name)
    train, val, test = (data.splits[k].origin for k in ("train", "val", "test"))
    assert len(train) and len(val) and len(test)
    assert train.max() + data.horizon <= val.min() and val.max() + data.horizon <= test.min()
    assert test.max() + data.horizon <= len(data.frame)
    series = data.target_series
    np.testing.assert_allclose(data.splits["test"].y[-1], series[test[-1] : test[-1] + data.horizon], rtol=1e-6)


def test_rebuilt_calendars_match_the_data():
    # Taylor's weekends are the low-load days only if 5 June 2000 is the Monday it was.
    load = load_dataset("taylor").frame["Load"]
    weekend = load.index.day_of_week >= 5
    assert load[weekend].mean() < 0.9 * load[~weekend].mean()
    # elecdaily's non-working days include every Saturday and Sunday of 2014.
    daily = load_dataset("elecdaily").frame
    assert (daily.loc[daily.index.day_of_week >= 5, "WorkDay"] == 0).all()
    assert daily.loc[daily.index.day_of_week < 5, "WorkDay"].mean() > 0.95


def test_dax_takes_the_dow_jones_of_the_nearest_date():
    frame = load_dataset("dax").frame
    np.testing.assert_array_equal(frame["DAX"], r_table("datasets", "EuStockMarkets")["DAX"])
    assert frame.index.equals(pd.bdate_range(FIRST_DAY, periods=1860))
    djia = dow_jones()
    nearest = djia.index[np.abs((djia.index.to_numpy()[None, :] - frame.index.to_numpy()[:, None])).argmin(axis=1)]
    np.testing.assert_array_equal(frame["DJIA"], djia[nearest].to_numpy())
    # The caveat's evidence: DAX returns follow the previous US session's Dow Jones most closely.
    dax = np.diff(np.log(frame["DAX"].to_numpy()))
    previous = djia.pct_change().shift(1).reindex(frame.index).to_numpy()[1:]
    same_day = djia.pct_change().reindex(frame.index).to_numpy()[1:]
    assert np.corrcoef(dax, previous)[0, 1] > max(0.25, np.corrcoef(dax, same_day)[0, 1] + 0.1)


@pytest.mark.parametrize("name", EXPECTED)
def test_a_tiny_mlp_trains_and_reports_the_baselines(name, runs_dir):
    run = run_experiment(ExperimentSpec(name, "mlp", epochs=1, model_options={"units": 4}, batch_size=256),
                         savedmodel=False)
    assert run.status == "completed" and run.meta.units == EXPECTED[name][4]
    baselines = run.metrics["baselines"]
    season = next(iter(EXPECTED[name][6]))
    assert {"naive", f"seasonal_naive_{season}"} <= set(baselines)
    assert all(np.isfinite(b["smape"]) and b["smape"] > 0 for b in baselines.values())
    assert ("mape" in run.metrics["model"]) == (not near_zero(run.predictions()["y_true"]))
