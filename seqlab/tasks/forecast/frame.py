"""Forecasting from a table of recent rows (``predict --input``): the model's inputs from it, and the answer.

The table holds the input columns in the units of the data; its last
``lookback`` rows are the history. A run with known future inputs
(``meta.known``) also needs the ``horizon`` rows to forecast, their known
columns filled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from seqlab.run_meta import RunMeta


def _rows(frame: pd.DataFrame, columns: list[str], what: str) -> np.ndarray:
    non_numeric = [c for c in columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if non_numeric:
        raise ValueError(f"Column(s) {non_numeric} are not numeric; fix the file and retry.")
    values = frame.loc[:, columns].to_numpy(dtype="float32")
    if not np.isfinite(values).all():
        raise ValueError(f"{what} contain NaN or infinite values; fill them first.")
    return values[None]


def frame_window(meta: RunMeta, frame: pd.DataFrame) -> np.ndarray | list[np.ndarray]:
    """The model's inputs from a table of recent rows, checked.

    Without known inputs: the last ``lookback`` rows as one window ``(1, T, F)``.
    With them (``meta.known``), the table also holds the ``horizon`` rows to
    forecast, whose known columns are filled and whose other columns may be
    empty: ``[window (1, T, F), future (1, H, K)]``.
    """
    features, lookback, known = meta.features, meta.lookback, meta.known
    ahead = meta.horizon if known else 0
    missing = [c for c in features if c not in frame.columns]
    if missing:
        raise ValueError(
            f"The input lacks column(s) {missing}; the model needs {features} "
            f"(in that order, {lookback} rows or more)."
        )
    if len(frame) < lookback + ahead:
        extra = f" and then {ahead} rows to forecast, with {known} filled" if ahead else ""
        raise ValueError(
            f"The input has {len(frame)} rows; the model needs at least {lookback} rows of history{extra}."
        )
    past = frame.iloc[len(frame) - lookback - ahead : len(frame) - ahead]
    window = _rows(past, list(features), "The last rows of the input")
    if not known:
        return window
    future = _rows(frame.tail(ahead), list(known), f"The last {ahead} rows' known columns {known}")
    return [window, future]


def forecast_table(meta: RunMeta, forecast: np.ndarray) -> pd.DataFrame:
    """The ``horizon`` forecasts ``(1, H)`` of one window, a row per step ahead: ``step`` and the target."""
    values = np.asarray(forecast)[0]
    return pd.DataFrame({"step": np.arange(1, len(values) + 1), meta.target: values})
