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
KNOWN_FUTURE = "known_future"  # the option of a dataset that declares columns known ahead


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
    known: tuple[str, ...] = (),
) -> DatasetInfo:
    """``defaults`` holds the windowing options plus any keyword of ``frame``;
    ``ranges`` the bounds of those keywords (``seqlab.checks.Range``).

    ``known``: exogenous columns known ahead (a weather forecast, the
    calendar); the dataset then takes the option ``known_future`` (default
    in ``defaults``, else false) that gives them to the model over the horizon.
    """
    if known:
        defaults = {KNOWN_FUTURE: False, **defaults}
    frame_keys = [k for k in defaults if k not in (*FORECAST_OPTIONS, KNOWN_FUTURE)]

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
            known=known if options.get(KNOWN_FUTURE) else (),
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
