"""Missing values in a user's series: numeric columns, infinities as missing, and the NaN policy.

``interpolate`` fills a missing value on the straight line between its
neighbours in time (by position when the rows are only numbered); ``drop``
deletes every row with a missing value. Either way the notes say exactly
which values or rows changed, and a value no policy can fill is refused.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from seqlab.data.time_axis import format_times

NAN_POLICIES = ("interpolate", "drop")


def numeric_columns(table: pd.DataFrame, columns: list[str], roles: dict[str, str]) -> pd.DataFrame:
    """``columns`` as floats; a value that is not a number (blank, NaN, inf are) refused with its row.

    ``roles``: column -> what it is for ("target", "exogenous input"), for the message.
    """
    out = {}
    for column in columns:
        values = table[column]
        if pd.api.types.is_bool_dtype(values):
            values = values.astype("float64")  # a True/False column is a 0/1 input
        numbers = pd.to_numeric(values, errors="coerce")
        text = values.astype(str).str.strip()
        bad = numbers.isna() & values.notna() & text.ne("")
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            numeric = [c for c in table.columns if pd.api.types.is_numeric_dtype(table[c])]
            raise ValueError(
                f"Column {column!r} (the {roles[column]}) is not numeric: row {row + 1} holds {text.iloc[row]!r}. "
                f"Choose a numeric column (numeric columns: {numeric}), or fix that value in the file."
            )
        out[column] = numbers.astype("float64")
    return pd.DataFrame(out, index=table.index)


def apply_nan_policy(values: pd.DataFrame, policy: str) -> tuple[pd.DataFrame, list[str]]:
    """``values`` with no NaN or infinity left, and a note per change; a ``ValueError`` if one stays."""
    if policy not in NAN_POLICIES:
        raise ValueError(f"nan_policy must be one of {NAN_POLICIES}, got {policy!r}.")
    infinite = np.isinf(values)
    values = values.mask(infinite)  # an infinity is a missing value, never a number to learn
    missing = values.isna()
    if not missing.to_numpy().any():
        return values, []
    empty = [c for c in values.columns if missing[c].all()]
    if empty:
        raise ValueError(f"Column(s) {empty} hold no number at all: choose other columns.")
    if policy == "drop":
        rows = missing.any(axis=1)
        per_column = ", ".join(f"{c}: {int(n):,}" for c, n in missing.sum().items() if n)
        note = (
            f"Dropped {int(rows.sum()):,} row(s) with missing or infinite values ({per_column}), "
            f"{format_times(values.index[rows.to_numpy()])}."
        )
        return values[~rows], [note]
    method = "time" if isinstance(values.index, pd.DatetimeIndex) else "index"
    filled = values.interpolate(method=method, limit_area="inside")
    left = filled.isna()
    if left.to_numpy().any():
        column = next(c for c in values.columns if left[c].any())
        raise ValueError(
            f"{int(left[column].sum()):,} missing {column} value(s) at the start or end of the series "
            f"({format_times(values.index[left[column].to_numpy()])}) have a neighbour on one side only, so "
            "interpolation cannot fill them: delete those rows from the file, or choose nan_policy=drop."
        )
    how = "in time" if method == "time" else "between neighbouring rows"
    notes = []
    for column in values.columns:
        gaps = missing[column].to_numpy()
        if gaps.any():
            inf = int(infinite[column].sum())
            of_them = f" ({inf:,} of them infinite)" if inf else ""
            notes.append(
                f"Filled {int(gaps.sum()):,} missing {column} value(s){of_them} by linear interpolation {how} "
                f"({format_times(values.index[gaps])})."
            )
    return filled, notes
