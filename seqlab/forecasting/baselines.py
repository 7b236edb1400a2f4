r"""Baselines every forecast is judged against: naive and seasonal naive.

For a window whose first target step is row ``o`` of series ``y``:

$$ \hat y^{\mathrm{naive}}_{o+h} = y_{o-1}, \qquad
   \hat y^{\mathrm{seasonal}}_{o+h} = y_{o+h-m\lceil (h+1)/m \rceil} $$

with season length ``m`` (48 half-hours for "same time yesterday", 336 for
"same time last week"). Only observed values (rows before ``o``) are used.
"""

from __future__ import annotations

import numpy as np


def naive_forecast(series: np.ndarray, origins: np.ndarray, horizon: int) -> np.ndarray:
    """Repeat the last observed value: ``(N,)`` origins -> ``(N, H)``."""
    return np.repeat(series[origins - 1][:, None], horizon, axis=1)


def seasonal_naive_forecast(
    series: np.ndarray, origins: np.ndarray, horizon: int, season: int
) -> np.ndarray | None:
    """Same time one season earlier; ``None`` if a window lacks a full season of history."""
    h = np.arange(horizon)
    # (N, H) rows one (or more, for h >= m) whole seasons back, always before the origin.
    rows = origins[:, None] + h[None, :] - season * np.ceil((h + 1) / season).astype(int)[None, :]
    if rows.min() < 0:
        return None
    return series[rows]


def baseline_forecasts(
    series: np.ndarray, origins: np.ndarray, horizon: int, seasons: dict[str, int]
) -> dict[str, np.ndarray]:
    """``{"naive": ..., "seasonal_naive_day": ..., ...}`` for every season with enough history."""
    forecasts = {"naive": naive_forecast(series, origins, horizon)}
    for name, period in seasons.items():
        forecast = seasonal_naive_forecast(series, origins, horizon, period)
        if forecast is not None:
            forecasts[f"seasonal_naive_{name}"] = forecast
    return forecasts
