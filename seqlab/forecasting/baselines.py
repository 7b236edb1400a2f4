r"""Baselines every forecast is judged against: naive, seasonal naive and Holt-Winters.

For a window whose first target step is row ``o`` of series ``y``:

$$ \hat y^{\mathrm{naive}}_{o+h} = y_{o-1}, \qquad
   \hat y^{\mathrm{seasonal}}_{o+h} = y_{o+h-m\lceil (h+1)/m \rceil} $$

with season length ``m`` (48 half-hours for "same time yesterday", 336 for
"same time last week"). With the training rows' end given, the classical
peer ``holt_winters`` (``seqlab.forecasting.holt_winters``) joins them, its
parameters fitted on the training rows. Only observed values (rows before ``o``)
are used.
"""

from __future__ import annotations

import numpy as np

from seqlab.forecasting.holt_winters import holt_winters_forecast
from seqlab.forecasting.metrics import main_season, mase_scale


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
    series: np.ndarray, origins: np.ndarray, horizon: int, seasons: dict[str, int], *, train_end: int | None = None
) -> dict[str, np.ndarray]:
    """``{"naive": ..., "seasonal_naive_day": ..., "holt_winters": ...}``, each where defined.

    Seasonal naive for every season with enough history; ``holt_winters`` (with the
    dataset's main season) only given ``train_end``, the row after the last training
    target, as its parameters must be fitted on training rows only.
    """
    forecasts = {"naive": naive_forecast(series, origins, horizon)}
    for name, period in seasons.items():
        forecast = seasonal_naive_forecast(series, origins, horizon, period)
        if forecast is not None:
            forecasts[f"seasonal_naive_{name}"] = forecast
    if train_end is not None:
        forecast = holt_winters_forecast(series, origins, horizon, main_season(seasons), train_end)
        if forecast is not None:
            forecasts["holt_winters"] = forecast
    return forecasts


def training_end(data) -> int:
    """The row after a forecast dataset's last training target: what MASE's scale and Holt-Winters may see."""
    return int(data.splits["train"].origin.max()) + data.horizon


def peers(data, origins: np.ndarray, horizon: int) -> tuple[dict[str, np.ndarray], float]:
    """Every baseline's forecasts from ``origins`` (``baseline_forecasts``) and MASE's scale, for a forecast dataset."""
    end = training_end(data)
    forecasts = baseline_forecasts(data.target_series, origins, horizon, data.seasons, train_end=end)
    return forecasts, mase_scale(data.target_series[:end], main_season(data.seasons))
