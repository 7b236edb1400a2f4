"""The time axis of a user's series: dates parsed, order, duplicates, sampling step, gaps and seasons.

A model reads a window of T rows as T equally spaced steps, so loading says
when the file's rows are not: gaps (whole steps missing) and irregular
sampling (steps that are no multiple of the usual one) are reported, not hidden.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

ROW = "row"  # the index name when the file has no time column: rows numbered from 1
_DAY = 86_400.0  # seconds
_SHOWN = 3  # times a note lists before "and N more"


def parse_time(values: pd.Series, column: str) -> pd.Index:
    """Column ``column`` as a time index: numbers stay numbers (years, seconds), text is parsed as dates."""
    blank = values.isna() | values.astype(str).str.strip().eq("")
    if blank.any():
        raise ValueError(
            f"Time column {column!r} is empty on row {_first_row(blank)}: give every row a time, "
            "or delete that row from the file."
        )
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return pd.Index(values.to_numpy(), name=column)
    text = values.astype(str).str.strip()
    parsed = _dates(text, "ISO8601")
    # Else a format pandas infers from the first value (1 Mar 2014, 03/01/2014), month or day first.
    for dayfirst in (False, True):
        if parsed.isna().any():
            inferred = _dates(text, None, dayfirst)
            parsed = inferred if inferred.isna().sum() < parsed.isna().sum() else parsed
    bad = parsed.isna()
    if bad.any():
        more = f" (and {int(bad.sum()) - 1:,} more rows)" if bad.sum() > 1 else ""
        raise ValueError(
            f"Time column {column!r} cannot be read as dates: row {_first_row(bad)} holds "
            f"{text[bad.to_numpy()].iloc[0]!r}{more}. Give dates like 2014-03-01 or 2014-03-01 10:30 in one "
            "format, choose another time column, or none (time='') to number the rows."
        )
    return pd.DatetimeIndex(parsed, name=column)


def _dates(text: pd.Series, fmt: str | None, dayfirst: bool = False) -> pd.Series:
    with warnings.catch_warnings():  # "could not infer format": the NaT it leaves is reported instead
        warnings.simplefilter("ignore", UserWarning)
        try:
            return pd.to_datetime(text, format=fmt, errors="coerce", dayfirst=dayfirst)
        except ValueError:  # mixed UTC offsets (summer and winter time): compare them in UTC
            return pd.to_datetime(text, format=fmt, errors="coerce", dayfirst=dayfirst, utc=True)


def _first_row(mask: pd.Series | np.ndarray) -> int:
    return int(np.flatnonzero(np.asarray(mask))[0]) + 1


def check_unique(index: pd.Index) -> None:
    """Refuse a time that appears twice, naming the first and the rows holding it."""
    repeated = index.duplicated(keep=False)
    if repeated.any():
        first = index[repeated][0]
        rows = np.flatnonzero(index == first) + 1
        count = int(index.duplicated().sum())
        more = f"; {count:,} repeated times in all" if count > 1 else ""
        raise ValueError(
            f"Time column {index.name!r} holds {format_time(first)} more than once (rows "
            f"{', '.join(map(str, rows[:_SHOWN]))}){more}: give each time once (keep one row, or average them)."
        )


@dataclass(frozen=True)
class Sampling:
    """The usual step between rows and where the rows depart from it.

    Attributes:
        step: the median step, in ``unit``s (seconds, months, or the time column's numbers).
        unit: ``"s"``, ``"month"`` or ``""`` (plain numbers).
        gaps: steps that are whole multiples (> 1) of ``step``: rows missing.
        missing: how many rows the gaps leave out.
        irregular: steps that are no whole multiple of ``step``.
        largest: the longest step ``(size, from, to)``.
    """

    step: float
    unit: str
    gaps: int
    missing: int
    irregular: int
    largest: tuple[float, object, object]

    def describe(self, size: float) -> str:
        """``size`` in words: ``30 min``, ``1 day``, ``3 months``, ``2.5``."""
        if self.unit == "month":
            return f"{size:g} month" + ("s" if size != 1 else "")
        if self.unit == "s":
            return format_duration(size)
        return f"{size:g}"


def sampling(index: pd.Index) -> Sampling | None:
    """The sampling of a sorted, duplicate-free index; ``None`` with fewer than two rows."""
    if len(index) < 2:
        return None
    positions, unit = _positions(index)
    steps = np.diff(positions)
    step = float(np.median(steps))  # the usual step, whatever a few gaps or odd steps do
    multiple = steps / step
    whole = np.isclose(multiple, np.round(multiple), rtol=0, atol=1e-9)
    gaps = whole & (np.round(multiple) > 1)
    longest = int(np.argmax(steps))
    return Sampling(
        step=step,
        unit=unit,
        gaps=int(gaps.sum()),
        missing=int((np.round(multiple[gaps]) - 1).sum()),
        irregular=int((~whole).sum()),
        largest=(float(steps[longest]), index[longest], index[longest + 1]),
    )


def _positions(index: pd.Index) -> tuple[np.ndarray, str]:
    """Times as numbers: months for month-aligned dates (months differ in length), else seconds or raw."""
    if not isinstance(index, pd.DatetimeIndex):
        return index.to_numpy(dtype="float64"), ""
    same_time = len(set(index.time)) == 1
    if same_time and (len(set(index.day)) == 1 or index.is_month_end.all()):
        return (index.year * 12 + index.month).to_numpy(dtype="float64"), "month"
    return ((index - index[0]) / pd.Timedelta(seconds=1)).to_numpy(dtype="float64"), "s"


def sampling_notes(found: Sampling | None, column: str) -> list[str]:
    """What the user should know about the sampling: gaps, irregular steps; nothing when regular."""
    if found is None or column == ROW:  # numbered rows are regular; dropped ones have their own note
        return []
    size, start, end = found.largest
    where = f"the largest {found.describe(size)}, from {format_time(start)} to {format_time(end)}"
    notes = []
    if found.irregular:
        notes.append(
            f"{column} is irregularly sampled: {found.irregular:,} steps are no multiple of the median step, "
            f"{found.describe(found.step)} ({where}). The model reads rows as equally spaced steps: resample "
            "the file to a regular step for reliable forecasts."
        )
    elif found.gaps:
        notes.append(
            f"{column} has {found.gaps:,} gap(s) in its {found.describe(found.step)} steps, "
            f"{found.missing:,} step(s) missing in all ({where}). Windows run across a gap as if its rows "
            "were consecutive: add the missing times to the file if that matters."
        )
    return notes


def inferred_seasons(found: Sampling | None) -> dict[str, int]:
    """Seasons from the step: a day (and a week) of steps for sub-daily data, a week for daily, a year for monthly."""
    if found is None:
        return {}
    if found.unit == "month" and found.step == 1:
        return {"year": 12}
    if found.unit == "s" and found.step == _DAY:
        return {"week": 7}
    if found.unit == "s" and found.step < _DAY and (_DAY / found.step).is_integer():
        day = int(_DAY / found.step)
        return {"day": day, "week": 7 * day}
    return {}


def format_time(value) -> str:
    """A time as a note shows it: ``2014-03-01``, ``2014-03-01 10:30``, ``1749``."""
    if isinstance(value, pd.Timestamp):
        if value == value.normalize():
            return value.strftime("%Y-%m-%d")
        return value.strftime("%Y-%m-%d %H:%M" if value.second == 0 else "%Y-%m-%d %H:%M:%S")
    return f"{value:g}" if isinstance(value, (float, np.floating)) else str(value)


def format_times(index: pd.Index, label: str = "at") -> str:
    """``at 2014-03-01 10:00, 2014-03-01 10:30 and 3 more``: the first few of ``index``, for a note."""
    shown = ", ".join(format_time(v) for v in index[:_SHOWN])
    more = f" and {len(index) - _SHOWN:,} more" if len(index) > _SHOWN else ""
    where = "rows" if index.name == ROW else label
    return f"{where} {shown}{more}"


def format_duration(seconds: float) -> str:
    """``1800`` -> ``30 min``; ``86400`` -> ``1 day``; ``9000`` -> ``2 h 30 min``."""
    parts = []
    for name, size in (("day", _DAY), ("h", 3600.0), ("min", 60.0), ("s", 1.0)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count:g} {name}" + ("s" if name == "day" and count != 1 else ""))
    return " ".join(parts[:2]) or f"{seconds:g} s"
