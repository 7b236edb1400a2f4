"""Forecast error metrics, in the data's own units (MAPE in percent)."""

from __future__ import annotations

import numpy as np


def forecast_metrics(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    """MAE, RMSE and MAPE over every window and every horizon step.

    MAPE skips targets equal to zero (undefined there) and is ``nan`` if all are.
    """
    y_true = np.asarray(y_true, dtype="float64")
    y_pred = np.asarray(y_pred, dtype="float64")
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true has shape {y_true.shape} but y_pred has {y_pred.shape}.")
    error = y_pred - y_true
    nonzero = y_true != 0
    mape = float(np.mean(np.abs(error[nonzero] / y_true[nonzero])) * 100) if nonzero.any() else float("nan")
    return {
        "mae": float(np.mean(np.abs(error))),
        "rmse": float(np.sqrt(np.mean(error**2))),
        "mape": mape,
    }
