"""Windowing: lookback T, horizon H, chronological splits, scaling fitted on train."""

from __future__ import annotations

import numpy as np
import pandas as pd

from seqlab.data.scaler import Scaler
from seqlab.data.sequence_data import SequenceData, Split
from seqlab.limits import check_data_size


def split_points(n: int, val_fraction: float, test_fraction: float) -> tuple[int, int]:
    """Row indices where validation and test begin (chronological, no shuffling)."""
    for name, value in (("val_fraction", val_fraction), ("test_fraction", test_fraction)):
        if not 0.0 < value < 0.5:
            raise ValueError(f"{name} must lie in (0, 0.5), got {value}.")
    test_start = int(round(n * (1.0 - test_fraction)))
    val_start = int(round(n * (1.0 - test_fraction - val_fraction)))
    return val_start, test_start


def window_origins(lookback: int, first_origin: int, last_origin: int, stride: int) -> tuple[int, int, int]:
    """``(start, stop, step)`` of the window origins in ``[first_origin, last_origin]``.

    Origins lie on one grid for every split, the rows ``k * stride``: with a
    stride of one day every origin is the same time of day (midnight, for
    data that starts at midnight), in training as in the test.
    """
    start = max(first_origin, lookback)
    return -(-start // stride) * stride, last_origin + 1, stride


def make_windows(
    values: np.ndarray,
    target: np.ndarray,
    lookback: int,
    horizon: int,
    first_origin: int,
    last_origin: int,
    stride: int = 1,
    known: np.ndarray | None = None,
) -> Split:
    """Cut ``(x, y)`` windows whose first target step lies in ``[first_origin, last_origin]``.

    ``x[i] = values[o - T : o]`` and ``y[i] = target[o : o + H]`` for origin ``o``;
    with ``known`` (rows, K), also ``future[i] = known[o : o + H]``, the
    inputs known ahead over the horizon. Inputs may reach back into the
    previous split; targets never leave their own.
    """
    origins = np.arange(*window_origins(lookback, first_origin, last_origin, stride))
    # (N, T) index grid -> (N, T, F) windows without a Python loop over windows.
    x = values[origins[:, None] + np.arange(-lookback, 0)[None, :]]
    ahead = origins[:, None] + np.arange(horizon)[None, :]
    future = None if known is None else known[ahead].astype("float32")
    return Split(x.astype("float32"), target[ahead].astype("float32"), origins, future=future)


def window_forecast_frame(
    name: str,
    frame: pd.DataFrame,
    target: str,
    exogenous: tuple[str, ...],
    units: dict[str, str],
    lookback: int,
    horizon: int,
    stride: int,
    val_fraction: float,
    test_fraction: float,
    seasons: dict[str, int],
    options: dict,
    known: tuple[str, ...] = (),
    load_notes: tuple[str, ...] = (),
) -> SequenceData:
    """Turn a time-indexed frame into a forecasting ``SequenceData``.

    ``known``: exogenous columns whose values over the horizon the model is
    given as a second input (``Split.future``); ``load_notes``: what loading
    changed in the data, for the user.
    """
    for arg, value in (("lookback", lookback), ("horizon", horizon), ("stride", stride)):
        if int(value) != value or value < 1:
            raise ValueError(f"{arg} must be a positive integer, got {value!r}.")
    missing = [c for c in (target, *exogenous) if c not in frame.columns]
    if missing:
        raise ValueError(
            f"Columns {missing} are not in the data; available columns: {list(frame.columns)}."
        )
    not_exogenous = [c for c in known if c not in exogenous]
    if not_exogenous:
        raise ValueError(
            f"Known-ahead column(s) {not_exogenous} must also be exogenous inputs; exogenous: {list(exogenous)}."
        )
    features = (target, *exogenous)
    values = frame.loc[:, list(features)].to_numpy(dtype="float64")
    if not np.isfinite(values).all():
        bad = int((~np.isfinite(values)).any(axis=1).sum())
        raise ValueError(
            f"{bad} rows contain NaN or infinite values; fill or drop them before training."
        )
    n = len(frame)
    val_start, test_start = split_points(n, val_fraction, test_fraction)
    shortest = min(val_start, test_start - val_start, n - test_start)
    if lookback + horizon > shortest:
        raise ValueError(
            f"lookback + horizon = {lookback + horizon} steps is longer than the shortest split "
            f"({shortest} of {n} rows); choose a shorter lookback or horizon."
        )
    if stride > shortest:
        raise ValueError(
            f"stride = {stride} steps is longer than the shortest split ({shortest} of {n} rows): a split "
            f"would hold a single window; choose a stride below {shortest}."
        )
    bounds = {"train": (0, val_start - horizon), "val": (val_start, test_start - horizon),
              "test": (test_start, n - horizon)}
    count = sum(len(range(*window_origins(lookback, a, b, stride))) for a, b in bounds.values())
    check_data_size(count, lookback, len(features), outputs=horizon)  # before the windows are cut
    target_values = values[:, 0]
    known_values = values[:, [features.index(c) for c in known]] if known else None
    splits = {
        name: make_windows(values, target_values, lookback, horizon, a, b, stride, known_values)
        for name, (a, b) in bounds.items()
    }
    return SequenceData(
        name=name,
        task="forecast",
        frame=frame,
        features=features,
        target=target,
        units=units,
        lookback=int(lookback),
        horizon=int(horizon),
        splits=splits,
        scaler=Scaler.fit(values[:val_start]),
        seasons={k: v for k, v in seasons.items() if v < n},
        options=options,
        known=tuple(known),
        load_notes=tuple(load_notes),
    )
