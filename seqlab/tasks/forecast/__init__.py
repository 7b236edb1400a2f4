"""Forecast: the next H values of a series; ``task`` registers it, ``frame`` forecasts from a table of rows."""

from seqlab.tasks.forecast.frame import frame_window
from seqlab.tasks.forecast.task import KNOWN_FEATURES, evaluate_forecast

__all__ = ["KNOWN_FEATURES", "evaluate_forecast", "frame_window"]
