"""Day-ahead forecasts at every midnight of the test period, seqlab against the classical and LightGBM peers.

    python -m bench.day_ahead [--preset energy-day-ahead]
    python -m bench.day_ahead --dataset taylor --models arx,lstm [--stride 4]

The lecture's protocol: at each midnight of the test split, forecast the next
48 half-hours from the data before it; on ``energy`` the next day's
temperature and working days are known (``known_future``: the measured
temperature stands in for a perfect weather forecast). Every forecaster sees
the same origins:

- seqlab: every run of the preset ``--preset`` (or each model in
  ``--models`` with the dataset's defaults, windows starting at every midnight
  and the known future inputs where the dataset has them) trained by
  ``run_experiment``, then predicting the midnight windows of the test split;
- the baselines of every run: naive, seasonal naive (day, week) and the
  Holt-Winters peer (statsmodels, fitted on the training rows);
- LightGBM (``bench/requirements.txt``), one global model over (origin,
  step) pairs of the training and validation midnights with the usual
  features: half-hour of the day, weekday, working day and temperature at
  the target time, the day's temperature range, demand at the same time
  one day and one week earlier, and the last observed demand.

Prints MAPE, MAE and RMSE per forecaster and the training seconds.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from seqlab.data import load_dataset  # noqa: E402
from seqlab.data.windowing import split_points  # noqa: E402
from seqlab.forecasting import baseline_forecasts, forecast_metrics  # noqa: E402
from seqlab.runs import RunStore  # noqa: E402
from seqlab.training import ExperimentSpec, run_experiment  # noqa: E402
from seqlab.lessons import get_preset  # noqa: E402

DAY = 48


def midnights(data, first: int, last: int) -> np.ndarray:
    """Rows in ``[first, last]`` at 00:00 with a whole lookback before them."""
    index = data.frame.index
    rows = np.arange(max(first, data.lookback), last + 1)
    return rows[(index[rows].hour == 0) & (index[rows].minute == 0)]


def windows(data, origins: np.ndarray) -> tuple[list[np.ndarray] | np.ndarray, np.ndarray]:
    """The model's inputs at ``origins`` (window, and the known future when used) and the truth."""
    values = data.frame.loc[:, list(data.features)].to_numpy("float32")
    x = values[origins[:, None] + np.arange(-data.lookback, 0)]
    ahead = origins[:, None] + np.arange(data.horizon)
    y = data.target_series[ahead]
    if not data.known:
        return x, y
    known = data.frame.loc[:, list(data.known)].to_numpy("float32")
    return [x, known[ahead]], y


def lightgbm_forecast(data, train_origins: np.ndarray, test_origins: np.ndarray) -> np.ndarray:
    import lightgbm

    frame, y = data.frame, data.target_series
    temperature = frame["Temperature"].to_numpy() if "Temperature" in frame else None
    workday = frame["WorkDay"].to_numpy() if "WorkDay" in frame else None

    def features(origins):
        s = (origins[:, None] + np.arange(data.horizon)).ravel()  # target rows
        o = np.repeat(origins, data.horizon)
        columns = {
            "half_hour": frame.index[s].hour * 2 + frame.index[s].minute // 30,
            "weekday": frame.index[s].day_of_week,
            "same_time_yesterday": y[s - DAY],
            "same_time_last_week": y[s - 7 * DAY],
            "last_observed": y[o - 1],
        }
        if temperature is not None:
            day = temperature[(origins[:, None] + np.arange(DAY))]
            columns["temperature"] = temperature[s]
            columns["day_max_temperature"] = np.repeat(day.max(axis=1), data.horizon)
            columns["day_min_temperature"] = np.repeat(day.min(axis=1), data.horizon)
        if workday is not None:
            columns["workday"] = workday[s]
        return pd.DataFrame(columns), y[s]

    x, target = features(train_origins)
    model = lightgbm.LGBMRegressor(n_estimators=600, learning_rate=0.03, num_leaves=31, verbose=-1)
    model.fit(x, target)
    return model.predict(features(test_origins)[0]).reshape(len(test_origins), data.horizon)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="energy-day-ahead")
    parser.add_argument("--dataset", help="instead of the preset: this dataset with --models")
    parser.add_argument("--models", default="arx,lstm")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--stride", type=int, default=DAY, help="with --dataset: rows between window starts")
    parser.add_argument("--runs", default="/tmp/bench_day_ahead_runs")
    args = parser.parse_args()

    if args.dataset:
        options = {"stride": args.stride, **({"known_future": True} if args.dataset == "energy" else {})}
        specs = [ExperimentSpec(args.dataset, m, options, epochs=args.epochs, early_stopping=5)
                 for m in args.models.split(",")]
    else:
        specs = list(get_preset(args.preset).specs)
    data = load_dataset(specs[0].dataset, **specs[0].data_options)
    n = len(data.frame)
    val_start, test_start = split_points(n, data.options["val_fraction"], data.options["test_fraction"])
    test = midnights(data, test_start, n - data.horizon)
    fit_rows = midnights(data, 7 * DAY, test_start - data.horizon)  # training and validation midnights
    x, y = windows(data, test)
    print(f"{data.name}: {len(test)} midnights from {data.frame.index[test[0]]:%Y-%m-%d} "
          f"to {data.frame.index[test[-1]]:%Y-%m-%d}; known future: {list(data.known) or 'none'}", flush=True)

    rows = []
    for name, forecast in baseline_forecasts(
        data.target_series, test, data.horizon, data.seasons, train_end=val_start
    ).items():
        rows.append((name, forecast_metrics(y, forecast), 0.0))
    started = time.perf_counter()
    rows.append(("LightGBM (bench peer)", forecast_metrics(y, lightgbm_forecast(data, fit_rows, test)),
                 time.perf_counter() - started))

    store = RunStore(args.runs)
    for spec in specs:
        started = time.perf_counter()
        run = run_experiment(spec, store=store)
        seconds = time.perf_counter() - started
        run_data = load_dataset(spec.dataset, **spec.data_options)  # the run's own inputs at the same origins
        forecast = run.load_model().predict(windows(run_data, test)[0], batch_size=256, verbose=0)
        name = f"seqlab {spec.model}" + (" (known future)" if run_data.known else "")
        rows.append((name, forecast_metrics(y, forecast), seconds))
        print(f"  {name}: MAPE {rows[-1][1].get('mape', float('nan')):.2f} %, {seconds:.0f} s", flush=True)

    print(f"\n| forecaster | MAPE % | MAE {data.units[data.target]} | RMSE | train + export s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, m, seconds in sorted(rows, key=lambda r: r[1].get("mape", r[1]["mae"])):
        print(f"| {name} | {m.get('mape', float('nan')):.2f} | {m['mae']:.3f} | {m['rmse']:.3f} | {seconds:.0f} |")


if __name__ == "__main__":
    main()
