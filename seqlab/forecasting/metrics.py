r"""Forecast error metrics, overall and per horizon step.

For ``N`` test windows and ``H`` horizon steps, with error
$e_{n,h} = \hat y_{n,h} - y_{n,h}$:

$$ \mathrm{MAE} = \frac{1}{NH}\sum_{n,h} |e_{n,h}|, \qquad
   \mathrm{RMSE} = \sqrt{\frac{1}{NH}\sum_{n,h} e_{n,h}^2}, \qquad
   \mathrm{MAPE} = \frac{100}{NH}\sum_{n,h} \frac{|e_{n,h}|}{y_{n,h}} $$

$$ \mathrm{sMAPE} = \frac{200}{NH}\sum_{n,h} \frac{|e_{n,h}|}{|y_{n,h}| + |\hat y_{n,h}|}, \qquad
   \mathrm{MASE} = \frac{\mathrm{MAE}}{s}, \qquad
   s = \frac{1}{T-m}\sum_{t=m+1}^{T} |y_t - y_{t-m}| $$

MAE and RMSE are in the target's unit, MAPE and sMAPE in percent (a sMAPE
term whose truth and forecast are both 0 counts as 0), MASE is unitless.
``s`` is the in-sample MAE of the seasonal-naive forecast on the training
rows $y_1 \dots y_T$ with the dataset's main season ``m`` (1 without a
season: the naive forecast), so MASE < 1 beats that forecast's typical
one-step error. MAPE is left out when the truth comes near or crosses zero
(``near_zero``: a true value at or below zero, or one below a tenth of the
mean ``|y|``): it divides by the truth, so it would explode or flip sign and
a percentage of it means nothing (Mackey-Glass, squashed around zero). MASE
is left out when ``s`` is not a positive number (a constant or too short
training series).

The per-step metrics are the same formulas with the mean over windows only:
arrays of length ``H``, whose MAE, sMAPE, MAPE and MASE average to the overall
values (RMSE per step does not: it averages squares before the root).

A prediction band $[l_{n,h}, u_{n,h}]$ (80 % or 95 %) is judged by its
coverage and width (``band_metrics``):

$$ \mathrm{coverage} = \frac{1}{NH}\sum_{n,h} \mathbb{1}[l_{n,h} \le y_{n,h} \le u_{n,h}], \qquad
   \mathrm{width} = \frac{1}{NH}\sum_{n,h} (u_{n,h} - l_{n,h}) $$

a calibrated 95 % band covers about 95 % of the truth; of two calibrated
bands the narrower is the better.
"""

from __future__ import annotations

import math

import numpy as np


NEAR_ZERO = 0.1  # a true value below this share of the mean |y| is too close to zero to divide by


def near_zero(y_true: np.ndarray) -> bool:
    """The truth crosses or touches zero, or some true value is below ``NEAR_ZERO`` of the mean ``|y|``:
    no percentage of it (MAPE) is meaningful."""
    y_true = np.asarray(y_true, dtype="float64")
    if y_true.size == 0:
        return False
    return not (y_true > 0).all() or float(y_true.min()) < NEAR_ZERO * float(y_true.mean())


def main_season(seasons: dict[str, int]) -> int:
    """The season MASE scales by: the dataset's first (``day`` for ``energy``), 1 without one."""
    return next(iter(seasons.values()), 1)


def mase_scale(series: np.ndarray, season: int) -> float:
    """``s``: mean ``|y_t - y_{t-m}|`` over ``series`` (the training rows); NaN if undefined or 0."""
    series = np.asarray(series, dtype="float64")
    if len(series) <= season:
        return math.nan
    scale = float(np.mean(np.abs(series[season:] - series[:-season])))
    return scale if scale > 0 else math.nan


def _step_errors(y_true: np.ndarray, y_pred: np.ndarray, scale: float) -> dict[str, np.ndarray]:
    """Every metric as an ``(H,)`` array: the means over the windows ``(N, H)``."""
    y_true = np.asarray(y_true, dtype="float64")
    y_pred = np.asarray(y_pred, dtype="float64")
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true has shape {y_true.shape} but y_pred has {y_pred.shape}.")
    # (N,) single-output forecasts read as H = 1.
    y_true, y_pred = y_true.reshape(len(y_true), -1), y_pred.reshape(len(y_pred), -1)
    error = np.abs(y_pred - y_true)
    denominator = np.abs(y_true) + np.abs(y_pred)
    ratio = np.divide(error, denominator, out=np.zeros_like(error), where=denominator > 0)
    steps = {
        "mae": error.mean(axis=0),
        "rmse": np.sqrt((error**2).mean(axis=0)),
        "smape": 200 * ratio.mean(axis=0),
    }
    if not near_zero(y_true):
        steps["mape"] = 100 * (error / y_true).mean(axis=0)
    if math.isfinite(scale) and scale > 0:
        steps["mase"] = steps["mae"] / scale
    return steps


def forecast_metrics(y_true: np.ndarray, y_pred: np.ndarray, scale: float = math.nan) -> dict[str, float]:
    """MAE, RMSE, sMAPE, and MAPE and MASE where defined, over every window and step.

    Args:
        y_true, y_pred: ``(N, H)`` truth and forecast, in the target's unit.
        scale: ``s``, the MASE denominator (``mase_scale`` of the training rows);
            NaN leaves MASE out.
    """
    steps = _step_errors(y_true, y_pred, scale)
    overall = {key: float(values.mean()) for key, values in steps.items()}
    error = np.asarray(y_pred, dtype="float64") - np.asarray(y_true, dtype="float64")
    overall["rmse"] = float(np.sqrt(np.mean(error**2)))  # over all steps at once, not a mean of roots
    return overall


def per_step_metrics(y_true: np.ndarray, y_pred: np.ndarray, scale: float = math.nan) -> dict[str, list[float]]:
    """The same metrics per horizon step: ``{"mae": [H values], ...}``, for ``metrics.json``."""
    return {key: values.tolist() for key, values in _step_errors(y_true, y_pred, scale).items()}


def band_metrics(y_true: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> dict:
    """Coverage and mean width of one prediction band, overall and per horizon step.

    ``coverage`` is the share of true values inside ``[lower, upper]`` (a
    fraction: 0.95 for a calibrated 95 % band), ``width`` the mean of
    ``upper - lower`` in the target's unit.

    Args:
        y_true, lower, upper: ``(N, H)`` (or ``(H,)`` for one origin).

    Returns:
        ``{"coverage": float, "width": float, "coverage_per_step": [H], "width_per_step": [H]}``.
    """
    y_true, lower, upper = (np.atleast_2d(np.asarray(a, dtype="float64")) for a in (y_true, lower, upper))
    if not y_true.shape == lower.shape == upper.shape:
        raise ValueError(f"y_true, lower and upper must have one shape; got {y_true.shape}, {lower.shape}, "
                         f"{upper.shape}.")
    if (lower > upper).any():
        raise ValueError("A band's lower bound lies above its upper bound; pass (lower, upper) in that order.")
    inside = (y_true >= lower) & (y_true <= upper)
    width = upper - lower
    return {
        "coverage": float(inside.mean()),
        "width": float(width.mean()),
        "coverage_per_step": inside.mean(axis=0).tolist(),
        "width_per_step": width.mean(axis=0).tolist(),
    }
