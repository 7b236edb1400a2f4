"""Forecasting models: raw units in, raw units out, scaling inside the model.

Every forecaster is ``Normalization -> body -> Dense(H) -> inverse Normalization``,
so the exported SavedModel takes the data in its own units (GW, °C, ...) and
needs no scaler beside it. The body is what the architectures differ in.
"""

from __future__ import annotations

from typing import Callable

import keras

from seqlab.data.sequence_data import SequenceData


def check_positive_int(name: str, value) -> int:
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    return int(value)


def check_dropout(value) -> float:
    if not 0.0 <= float(value) < 1.0:
        raise ValueError(f"dropout must lie in [0, 1), got {value!r}.")
    return float(value)


def build_forecaster(
    data: SequenceData, body: Callable[[keras.KerasTensor], keras.KerasTensor], name: str
) -> keras.Model:
    """Wrap ``body`` (a function of the scaled ``(B, T, F)`` input) into a forecaster."""
    scaler = data.scaler
    t = data.target_index
    inputs = keras.Input(shape=data.input_shape, name="window")  # (B, T, F) raw units
    scaled = keras.layers.Normalization(
        axis=-1, mean=scaler.mean, variance=scaler.std**2, name="scale_inputs"
    )(inputs)
    features = body(scaled)
    forecast_scaled = keras.layers.Dense(data.horizon, name="forecast")(features)  # (B, H)
    forecast = keras.layers.Normalization(
        axis=None,
        mean=float(scaler.mean[t]),
        variance=float(scaler.std[t] ** 2),
        invert=True,
        name="unscale_forecast",
    )(forecast_scaled)
    return keras.Model(inputs, forecast, name=name)
