"""Forecast: the next H values of one series, in its own units, against naive forecasts.

``metrics.json`` holds the overall metrics of the model and every baseline
(``seqlab.forecasting.metrics``) and, under ``per_step``, the same metrics
per horizon step in the same ``{"model": ..., "baselines": ...}`` shape.

Head: ``Dense(H)`` on the scaled features, then the target's scaling undone,
so the model (and its SavedModel) returns forecasts in the data's units.

Known future inputs (``SequenceData.known``: a weather forecast, the
calendar) are a second input ``future`` ``(H, K)``: scaled, expanded into
hinge features (``seqlab.layers.Hinges``), flattened and given to the head
beside the body's features, so every architecture can use them without
changing its body:

    [window, future] -> [scaled window, scaled future]
    body(scaled window) ++ flatten(hinges(scaled future)) -> Dense(H) -> unscaled
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from seqlab.data.sequence_data import SequenceData
from seqlab.forecasting import forecast_metrics, peers, per_step_metrics
from seqlab.tasks.forecast.frame import forecast_table, frame_window
from seqlab.tasks.metrics import MAE, MAPE, MASE, RMSE, SMAPE
from seqlab.tasks.numeric import InputSpec, numeric_inputs, scale_inputs
from seqlab.tasks.task import Evaluation, Task, against_baselines, register_task

if TYPE_CHECKING:
    import keras


KNOWN_FEATURES = "known_future"  # the layer whose output is the head's input from the known future
# Knots of a continuous known input, at these quantiles of its training values: the median and the
# upper tail, as demand grows ever faster with heat (cooling). Chosen over (0.2, 0.4, 0.6, 0.8) on
# energy's validation split (bench/day_ahead.py).
HINGE_QUANTILES = (0.5, 0.9, 0.97)


def forecast_inputs(data: SequenceData) -> tuple[InputSpec, ...]:
    """The window ``(T, F)``, and the known inputs over the horizon ``(H, K)`` when the data has any."""
    future = (InputSpec("future", (data.horizon, len(data.known)), "float32"),) if data.known else ()
    return numeric_inputs(data) + future


def _known_scaler(data: SequenceData) -> tuple[np.ndarray, np.ndarray]:
    columns = [data.features.index(c) for c in data.known]
    return data.scaler.mean[columns], data.scaler.std[columns]


def scale_forecast_inputs(data: SequenceData):
    """``Normalization`` of the window, and of the known future inputs with the same training statistics."""
    import keras

    scale_window = scale_inputs(data)
    if not data.known:
        return scale_window
    mean, std = _known_scaler(data)
    scale_future = keras.layers.Normalization(axis=-1, mean=mean, variance=std**2, name="scale_future")
    return lambda raw: [scale_window(raw[0]), scale_future(raw[1])]


def hinge_knots(data: SequenceData) -> tuple[list[int], list[float]]:
    """Knots (scaled units) at the training quantiles of each known input with more than two values."""
    mean, std = _known_scaler(data)
    future = data.splits["train"].future.reshape(-1, len(data.known))
    columns, knots = [], []
    for k in range(len(data.known)):
        if len(np.unique(future[:, k])) > 2:  # a 0/1 flag is linear already
            for q in np.quantile((future[:, k] - mean[k]) / std[k], HINGE_QUANTILES):
                columns.append(k)
                knots.append(float(q))
    return columns, knots


def forecast_head(
    data: SequenceData, features: keras.KerasTensor, future: keras.KerasTensor | None = None
) -> keras.KerasTensor:
    import keras

    from seqlab.layers import Hinges

    t = data.target_index
    if future is not None:  # the scaled known inputs (B, H, K)
        columns, knots = hinge_knots(data)
        phi = keras.layers.Flatten(name=KNOWN_FEATURES)(Hinges(columns, knots, name="hinges")(future))
        features = keras.layers.Concatenate(name="features_and_known")([features, phi])
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
    baselines, scale = peers(data, test.origin, data.horizon)
    metrics = against_baselines(partial(forecast_metrics, scale=scale), test.y, forecast, baselines)
    metrics["per_step"] = against_baselines(partial(per_step_metrics, scale=scale), test.y, forecast, baselines)
    predictions = {
        "y_true": test.y,
        "y_pred": forecast,
        "origin": test.origin,
        **{f"baseline_{k}": v for k, v in baselines.items()},
    }
    return Evaluation(metrics, predictions)


FORECAST = register_task(
    Task(
        name="forecast",
        sequence_outputs=False,
        loss="mse",
        metrics=("mae",),
        head=forecast_head,
        inputs=forecast_inputs,
        preprocessor=scale_forecast_inputs,
        evaluate=evaluate_forecast,
        readout="forecast",
        readout_targets=scaled_targets,
        test_metrics=(MAE, RMSE, MAPE, SMAPE, MASE),
        outputs=lambda meta: (meta.horizon,),
        baselines=(
            "Naive repeats the last value; seasonal naive repeats the same time one season earlier; "
            "Holt-Winters (damped additive trend and season) smooths with parameters statsmodels fitted "
            "on the training rows only."
        ),
        series=True,
        frame_window=frame_window,
        frame_answer=forecast_table,
    )
)
