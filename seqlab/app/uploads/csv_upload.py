"""The CSV series upload: the file, then its time, target, exogenous and known-ahead columns and the NaN policy.

Registered as the ``csv`` dataset's upload (``seqlab.app.uploads.upload``). The
choices are the dataset's own options, so the spec on the Train page and
``python -m seqlab train --dataset csv:PATH --set target=...`` say the same.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from seqlab.app.uploads.upload import UPLOADS, Upload, stored_csv
from seqlab.data.missing_values import NAN_POLICIES
from seqlab.data.user_series import COLUMN_DEFAULTS, read_series_csv, store_user_csv
from seqlab.data.pinned_file import FILE_DEFAULTS

NO_TIME = ""  # the time choice that numbers the rows
POLICY_TEXT = {
    "interpolate": "Interpolate (a straight line between the neighbours in time)",
    "drop": "Drop the rows with a missing value",
}


@st.cache_data(show_spinner="Reading the file…", max_entries=8)
def _columns(path: str, sha256: str, file_name: str) -> pd.DataFrame:
    """One row per column: its name and whether it reads as numbers (the file is read once per hash)."""
    table = read_series_csv(path, sha256, file_name)
    return pd.DataFrame({"column": table.columns,
                         "numeric": [pd.api.types.is_numeric_dtype(table[c]) for c in table.columns]})  # fmt: skip


def csv_upload(key: str, data_options: dict) -> dict | None:
    """The upload and the column choices: the ``csv`` dataset's file and column options."""
    given = stored_csv(
        "Your series (.csv)", key, lambda upload: store_user_csv(upload, upload.name),
        "Comma-separated, one header line, one row per time step; UTF-8 (Excel: 'CSV UTF-8').", _columns,
    )  # fmt: skip
    if given is None:
        return None
    stored, found = given
    columns = list(found.column)
    numeric = list(found.column[found.numeric])
    # The first column that is not a number is most likely the date; a numbers-only file has none.
    time_guess = next((c for c in columns if c not in numeric), NO_TIME)
    c1, c2 = st.columns(2)
    time = c1.selectbox(
        "Time column", [NO_TIME, *columns], index=[NO_TIME, *columns].index(time_guess), key=f"{key}.time",
        format_func=lambda c: c or "(none: number the rows)",
        help="Dates are parsed (2014-03-01 10:30, 01/03/2014, …) and the rows sorted by them; numbers stay numbers.",
    )  # fmt: skip
    candidates = [c for c in columns if c != time]
    if not candidates:
        st.error("The file has no column besides the time: add the values to forecast.")
        return None
    default = next((c for c in candidates if c in numeric), candidates[0])
    target = c2.selectbox("Target (to forecast)", candidates, index=candidates.index(default), key=f"{key}.target")
    exogenous = st.multiselect(
        "Exogenous inputs", [c for c in candidates if c != target], key=f"{key}.exogenous",
        help="Other columns the model reads over the lookback window, beside the target's past.",
    )  # fmt: skip
    known = st.multiselect(
        "Known ahead", exogenous, key=f"{key}.known",
        help="Exogenous columns whose values over the horizon are known when forecasting (a weather "
             "forecast, a calendar); the model is given them as a second input.",
    )  # fmt: skip
    nan_policy = st.radio(
        "Missing values (blank, NaN, infinite)", NAN_POLICIES, key=f"{key}.nan_policy", horizontal=True,
        format_func=POLICY_TEXT.get,
        help="Either way, every value or row changed is listed before training.",
    )  # fmt: skip
    return {**stored, "time": time, "target": target, "exogenous": ",".join(exogenous),
            "known": ",".join(known), "nan_policy": nan_policy}  # fmt: skip


UPLOADS.register(
    "csv",
    Upload(
        csv_upload,
        (*FILE_DEFAULTS, *COLUMN_DEFAULTS),
        "Upload a .csv file (one row per time step, one column per series) to see it as a forecasting "
        "dataset; the Train page takes the same file.",
    ),
)
