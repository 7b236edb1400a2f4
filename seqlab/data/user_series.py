"""The ``csv`` dataset: the user's own CSV series as forecasting data.

Its options pin the file (``path``, ``sha256``, ``file_name``: see
``seqlab.data.pinned_file``) and name its columns: ``time`` (``""``: the rows
are numbered), ``target``, ``exogenous`` and the subset of them ``known`` ahead
(comma-separated, ``""``: none). Loading reads the file through
``seqlab.inputs.read_csv``, parses the times, sorts by them, refuses repeated
times, reports gaps and irregular sampling, applies ``nan_policy`` and says in
``SequenceData.load_notes`` exactly what it changed; then the table is
windowed like every built-in forecasting dataset.
"""

from __future__ import annotations

import math

import pandas as pd

from seqlab.checks import Range
from seqlab.data.missing_values import NAN_POLICIES, apply_nan_policy, numeric_columns
from seqlab.data.pinned_file import FILE_DEFAULTS, read_pinned_csv, store_csv
from seqlab.data.registry import DatasetInfo, register
from seqlab.data.sequence_data import SequenceData
from seqlab.data.time_axis import ROW, check_unique, inferred_seasons, parse_time, sampling, sampling_notes
from seqlab.data.windowing import split_points, window_forecast_frame
from seqlab.inputs import Source

COLUMN_DEFAULTS = {"time": "", "target": "", "exogenous": "", "known": "", "nan_policy": "interpolate"}
SERIES_DEFAULTS = {
    "lookback": 24,
    "horizon": 1,
    "stride": 1,
    "val_fraction": 0.15,
    "test_fraction": 0.15,
    **COLUMN_DEFAULTS,
    "season": 0,
    "unit": "",
    **FILE_DEFAULTS,
}
LICENCE = "yours: the file is read on this machine and never leaves it"


def read_series_csv(path: str, sha256: str = "", file_name: str = "") -> pd.DataFrame:
    """The file as read (every column, unchanged), after its pin is checked."""
    return read_pinned_csv(path, sha256, file_name, "csv")


def store_user_csv(source: Source, name: str) -> dict:
    """An upload checked by ``read_csv``, kept in the cache folder under its hash: its data options."""
    return store_csv(source, name)


def column_list(text: str, option: str) -> tuple[str, ...]:
    """``"A, B"`` -> ``("A", "B")``; ``""`` -> ``()``; a name given twice refused."""
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if len(set(names)) != len(names):
        raise ValueError(f"{option} names a column more than once ({text!r}): give each column once.")
    return names


def series_table(
    path: str,
    sha256: str = "",
    file_name: str = "",
    time: str = "",
    target: str = "",
    exogenous: str = "",
    known: str = "",
    nan_policy: str = "interpolate",
) -> tuple[pd.DataFrame, list[str]]:
    """The target and exogenous columns indexed by time, sorted, without NaN; and the notes on what changed."""
    raw = read_series_csv(path, sha256, file_name)
    exogenous_columns = column_list(exogenous, "exogenous")
    known_columns = column_list(known, "known")
    _check_columns(raw, time, target, exogenous_columns, known_columns)
    notes = []
    index = parse_time(raw[time], time) if time else pd.RangeIndex(1, len(raw) + 1, name=ROW)
    roles = {target: "target", **{c: "exogenous input" for c in exogenous_columns}}
    table = numeric_columns(raw, [target, *exogenous_columns], roles).set_axis(index)
    if not table.index.is_monotonic_increasing:
        table = table.sort_index(kind="stable")
        notes.append(f"Sorted the rows by {time} (the file is not in time order).")
    check_unique(table.index)
    table, changed = apply_nan_policy(table, nan_policy)
    notes += changed
    if table.empty:
        raise ValueError(f"Every row has a missing {target} or exogenous value: nothing is left to train on.")
    notes += sampling_notes(sampling(table.index), table.index.name)
    if len(table) and table[target].nunique() == 1:
        raise ValueError(
            f"The target {target!r} is constant (every value is {table[target].iloc[0]:g}): there is nothing "
            "to forecast; choose another target column."
        )
    return table, notes


def _check_columns(raw: pd.DataFrame, time: str, target: str, exogenous: tuple, known: tuple) -> None:
    available = list(raw.columns)
    if not target:
        raise ValueError(
            f"Choose the target column to forecast (target=COLUMN; on the command line --set target=COLUMN); "
            f"the file's columns: {available}."
        )
    for option, names in (("time", (time,) if time else ()), ("target", (target,)), ("exogenous", exogenous),
                          ("known", known)):  # fmt: skip
        missing = [n for n in names if n not in raw.columns]
        if missing:
            raise ValueError(f"{option}: column(s) {missing} are not in the file; its columns: {available}.")
    if target in exogenous:
        raise ValueError(f"The target {target!r} is also listed as exogenous: its past is always an input; "
                         "remove it from exogenous.")
    if time and time in (target, *exogenous):
        raise ValueError(f"The time column {time!r} cannot also be the target or an exogenous input.")
    not_exogenous = [c for c in known if c not in exogenous]
    if not_exogenous:
        raise ValueError(
            f"known: column(s) {not_exogenous} are not exogenous inputs; a column known ahead must also be "
            f"listed in exogenous (now {list(exogenous) or 'none'})."
        )


def check_rows(n: int, lookback: int, horizon: int, val_fraction: float, test_fraction: float) -> None:
    """Refuse a table too short for its windows, saying which option to change."""
    val_start, test_start = split_points(n, val_fraction, test_fraction)
    test_rows = n - test_start
    if horizon > test_rows:
        raise ValueError(
            f"The horizon H = {horizon} steps is longer than the test split ({test_rows} of {n:,} rows, "
            f"test_fraction {test_fraction:g}): choose a horizon of at most {test_rows}, raise test_fraction, "
            "or give a longer file."
        )
    shortest = min(val_start, test_start - val_start, test_rows)
    if lookback + horizon > shortest:
        share = min(val_fraction, test_fraction, 1.0 - val_fraction - test_fraction)
        needed = math.ceil((lookback + horizon) / share)
        raise ValueError(
            f"Too few rows: the series has {n:,} rows after loading, so its shortest split holds {shortest}, but "
            f"lookback + horizon = {lookback + horizon} steps must fit in each split. Give at least about "
            f"{needed:,} rows, or choose a shorter lookback or horizon."
        )


def user_series_frame(**options) -> pd.DataFrame:
    """The cleaned table, for a preview."""
    return series_table(**{k: options.get(k, v) for k, v in {**FILE_DEFAULTS, **COLUMN_DEFAULTS}.items()})[0]


def load_user_series(
    lookback: int, horizon: int, stride: int, val_fraction: float, test_fraction: float,
    season: int, unit: str, **columns,
) -> SequenceData:  # fmt: skip
    table, notes = series_table(**columns)
    check_rows(len(table), lookback, horizon, val_fraction, test_fraction)
    target, exogenous = columns["target"], column_list(columns["exogenous"], "exogenous")
    seasons = {"season": season} if season else inferred_seasons(sampling(table.index))
    options = dict(lookback=lookback, horizon=horizon, stride=stride, val_fraction=val_fraction,
                   test_fraction=test_fraction, season=season, unit=unit, **columns)  # fmt: skip
    return window_forecast_frame(
        "csv",
        table,
        target=target,
        exogenous=exogenous,
        units={target: unit, **{c: "" for c in exogenous}},  # a CSV carries no units: the user may name the target's
        lookback=lookback,
        horizon=horizon,
        stride=stride,
        val_fraction=val_fraction,
        test_fraction=test_fraction,
        seasons=seasons,
        options=options,
        known=column_list(columns["known"], "known"),
        load_notes=tuple(notes),
    )


register(
    DatasetInfo(
        name="csv",
        title="Your own CSV series",
        task="forecast",
        description=(
            "A time series from your own CSV file (an upload, or `--dataset csv:PATH`): choose the time column, "
            "the target to forecast, exogenous input columns and which of them are known ahead (a weather "
            "forecast, a calendar). Dates are parsed and sorted; repeated times are refused; gaps and irregular "
            "sampling are reported; missing values are interpolated or their rows dropped, and every change is "
            "listed. The spec records the file's name and SHA-256, so a changed file is refused rather than "
            "silently trained on."
        ),
        source="your file, read through seqlab's input checks (size limit, encoding, well-formed CSV)",
        licence=LICENCE,
        frame=user_series_frame,
        load=load_user_series,
        defaults=SERIES_DEFAULTS,
        ranges={"season": Range(0, 100_000)},
        choices={"nan_policy": NAN_POLICIES},
    )
)
