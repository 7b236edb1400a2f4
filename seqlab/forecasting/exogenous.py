r"""Future exogenous inputs: what an iterated forecast appends for $\mathbf{x}$ after the origin.

The notes: iterating a single-step model needs the future inputs it does not
have. Three answers, one per mode (``FUTURE_INPUTS``):

- ``known``: the series' actual values, as a perfect forecast of them (the
  lecture's weather forecast and calendar). Rows past the end of the data
  repeat the last row.
- ``zero``: the training mean of each column, i.e. zero in the model's scaled
  units: the input carries no news.
- ``predicted``: each exogenous column forecast from the origin by its own
  deterministic model, the notes' $x_t = f^x(x_{t-1}, \dots, x_{t-T})$: a
  linear ``seqlab.layers.arx.ARX`` (one step ahead, lag T) fitted by least
  squares on that column's training windows and iterated. It reads only its
  own column's past (the notes' $f^x$ may also read $y$), so the path is fixed
  before $y$ is simulated and is the same for every Monte-Carlo sample.

For an origin after the training rows (validation, test) every mode reads
only rows before the origin, except ``known``, which reads the exogenous
columns (never the target) after it.
"""

from __future__ import annotations

import numpy as np

from seqlab.forecasting.series import ForecastSeries

FUTURE_INPUTS = {
    "known": "known (the actual values)",
    "zero": "zero (the training mean)",
    "predicted": "predicted (own model f^x)",
}
EXOGENOUS_RIDGE = 1.0  # in scaled units: calendar flags make the lags of a column nearly collinear


def check_mode(mode: str) -> str:
    if mode not in FUTURE_INPUTS:
        raise ValueError(f"Unknown future-input mode {mode!r}; valid modes: {', '.join(FUTURE_INPUTS)}.")
    return mode


def exogenous_path(series: ForecastSeries, origins: np.ndarray, steps: int, mode: str) -> np.ndarray:
    """Rows ``o .. o+steps-1`` of every origin ``(N, steps, F)``: exogenous columns filled, the target NaN.

    The target column stays NaN: a strategy writes its own predictions there,
    so a forecast can never read a future target by mistake.
    """
    check_mode(mode)
    origins = series.check_origins(origins)
    rows = origins[:, None] + np.arange(steps)[None, :]  # (N, steps)
    if mode == "known":
        path = series.values[np.minimum(rows, len(series.values) - 1)].copy()  # past the end: the last row
    elif mode == "zero":
        path = np.broadcast_to(series.mean, (*rows.shape, len(series.features))).copy()
    else:
        path = np.zeros((*rows.shape, len(series.features)))
        for column in series.exogenous:
            path[:, :, column] = _predict_column(series, column, origins, steps)
    path[:, :, 0] = np.nan
    return path


def _predict_column(series: ForecastSeries, column: int, origins: np.ndarray, steps: int) -> np.ndarray:
    """``f^x`` of one column, iterated ``steps`` times from every origin: ``(N, steps)`` raw units."""
    arx = fit_column_model(series, column)
    mean, std = series.mean[column], series.std[column]
    history = (series.windows(origins)[:, :, column].astype("float64") - mean) / std  # (N, T) scaled
    out = np.empty((len(origins), steps))
    for tau in range(steps):
        nxt = np.asarray(arx(history[:, :, None]), dtype="float64")[:, 0]  # (N,) next scaled value
        out[:, tau] = nxt
        history = np.concatenate([history[:, 1:], nxt[:, None]], axis=1)
    return out * std + mean


def fit_column_model(series: ForecastSeries, column: int):
    """The one-step ``ARX`` of ``column`` on its own last T values, fitted on the training rows (scaled)."""
    from seqlab.layers.arx import ARX

    lag = series.lookback
    train = (series.values[: series.train_end, column] - series.mean[column]) / series.std[column]
    if len(train) <= lag:
        raise ValueError(
            f"The training rows ({len(train)}) are too few to fit f^x on {lag} lags of "
            f"{series.features[column]!r}; use the 'known' or 'zero' future inputs."
        )
    rows = np.arange(lag, len(train))
    windows = train[rows[:, None] + np.arange(-lag, 0)[None, :]][:, :, None]  # (N, T, 1)
    return ARX(1, ridge=EXOGENOUS_RIDGE).fit(windows, train[rows][:, None])
