"""Forecast: the next H values of one series, in its own units, against naive forecasts.

``metrics.json`` holds the overall metrics of the model and every baseline
(``seqlab.forecasting.metrics``) and, under ``per_step``, the same metrics
per horizon step in the same ``{"model": ..., "baselines": ...}`` shape.

Head: ``Dense(H)`` on the scaled features, then the target's scaling undone,
so the model (and its SavedModel) returns forecasts in the data's units.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from seqlab.data.sequence_data import SequenceData
from seqlab.forecasting import baseline_forecasts, forecast_metrics, main_season, mase_scale, per_step_metrics
from seqlab.tasks.metrics import MAE, MAPE, MASE, RMSE, SMAPE
from seqlab.tasks.task import Evaluation, Task, against_baselines, register_task

if TYPE_CHECKING:
    import keras

    from seqlab.run_meta import RunMeta


def forecast_head(data: SequenceData, features: keras.KerasTensor) -> keras.KerasTensor:
    import keras

    t = data.target_index
    forecast_scaled = keras.layers.Dense(data.horizon, name="forecast")(features)  # (B, H)
    return keras.layers.Normalization(
        axis=None,
        mean=float(data.scaler.mean[t]),
        variance=float(data.scaler.std[t] ** 2),
        invert=True,
        name="unscale_forecast",
    )(forecast_scaled)


def scaled_targets(data: SequenceData, y: np.ndarray) -> np.ndarray:
    """What ``Dense(H)`` must output: the targets in the scaled units."""
    t = data.target_index
    return (y - data.scaler.mean[t]) / data.scaler.std[t]


def evaluate_forecast(data: SequenceData, forecast: np.ndarray) -> Evaluation:
    test = data.splits["test"]
    baselines = baseline_forecasts(data.target_series, test.origin, data.horizon, data.seasons)
    # MASE's scale: the seasonal-naive error on the training rows (up to the last training target).
    train_end = int(data.splits["train"].origin.max()) + data.horizon
    scale = mase_scale(data.target_series[:train_end], main_season(data.seasons))
    metrics = against_baselines(partial(forecast_metrics, scale=scale), test.y, forecast, baselines)
    metrics["per_step"] = against_baselines(partial(per_step_metrics, scale=scale), test.y, forecast, baselines)
    predictions = {
        "y_true": test.y,
        "y_pred": forecast,
        "origin": test.origin,
        **{f"baseline_{k}": v for k, v in baselines.items()},
    }
    return Evaluation(metrics, predictions)


def frame_window(meta: RunMeta, frame: pd.DataFrame) -> np.ndarray:
    """The last ``lookback`` rows of ``frame`` as one window ``(1, T, F)``, checked."""
    features, lookback = meta.features, meta.lookback
    missing = [c for c in features if c not in frame.columns]
    if missing:
        raise ValueError(
            f"The input lacks column(s) {missing}; the model needs {features} "
            f"(in that order, {lookback} rows or more)."
        )
    if len(frame) < lookback:
        raise ValueError(f"The input has {len(frame)} rows; the model needs at least {lookback}.")
    values = frame.loc[:, features].tail(lookback)
    non_numeric = [c for c in features if not pd.api.types.is_numeric_dtype(values[c])]
    if non_numeric:
        raise ValueError(f"Column(s) {non_numeric} are not numeric; fix the file and retry.")
    window = values.to_numpy(dtype="float32")
    if not np.isfinite(window).all():
        raise ValueError("The last rows of the input contain NaN or infinite values; fill them first.")
    return window[None]


FORECAST = register_task(
    Task(
        name="forecast",
        sequence_outputs=False,
        loss="mse",
        metrics=("mae",),
        head=forecast_head,
        evaluate=evaluate_forecast,
        readout="forecast",
        readout_targets=scaled_targets,
        test_metrics=(MAE, RMSE, MAPE, SMAPE, MASE),
        outputs=lambda meta: (meta.horizon,),
        baselines="Naive repeats the last value; seasonal naive repeats the same time one season earlier.",
        series=True,
        frame_window=frame_window,
    )
)
