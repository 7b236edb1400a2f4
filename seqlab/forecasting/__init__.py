"""Forecasting: metrics and baselines on the same test split as the model."""

from seqlab.forecasting.baselines import baseline_forecasts, peers, training_end
from seqlab.forecasting.metrics import band_metrics, forecast_metrics, main_season, mase_scale, per_step_metrics

__all__ = [
    "band_metrics", "baseline_forecasts", "forecast_metrics", "main_season", "mase_scale", "peers", "per_step_metrics",
    "training_end",
]
