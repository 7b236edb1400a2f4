"""Register a time-indexed table as a forecasting dataset.

Every forecasting dataset shares the same options (lookback, horizon, stride,
split fractions); only its table, target, exogenous inputs and seasons differ.
"""

from __future__ import annotations

from typing import Callable

import pandas as pd

from seqlab.data.registry import DatasetInfo, register
from seqlab.data.windowing import window_forecast_frame

FORECAST_OPTIONS = ("lookback", "horizon", "stride", "val_fraction", "test_fraction")


def register_forecast(
    name: str,
    title: str,
    description: str,
    source: str,
    licence: str,
    frame: Callable[..., pd.DataFrame],
    target: str,
    exogenous: tuple[str, ...],
    units: dict[str, str],
    seasons: dict[str, int],
    defaults: dict,
    ranges: dict | None = None,
) -> DatasetInfo:
    """``defaults`` holds the windowing options plus any keyword of ``frame``;
    ``ranges`` the bounds of those keywords (``seqlab.checks.Range``)."""
    frame_keys = [k for k in defaults if k not in FORECAST_OPTIONS]

    def load(**options) -> "SequenceData":  # noqa: F821 (string annotation)
        table = frame(**{k: options[k] for k in frame_keys})
        return window_forecast_frame(
            name,
            table,
            target=target,
            exogenous=exogenous,
            units=units,
            seasons=seasons,
            options=options,
            **{k: options[k] for k in FORECAST_OPTIONS},
        )

    return register(
        DatasetInfo(
            name=name,
            title=title,
            task="forecast",
            description=description,
            source=source,
            licence=licence,
            frame=lambda: frame(**{k: defaults[k] for k in frame_keys}),
            load=load,
            defaults=defaults,
            units=units,
            ranges=ranges or {},
        )
    )
