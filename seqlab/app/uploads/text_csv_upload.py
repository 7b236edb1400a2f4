"""The labelled-texts CSV upload: the file, then its text column and its label column.

Registered as the ``textcsv`` dataset's upload (``seqlab.app.uploads.upload``). The
choices are the dataset's own options, so the spec on the Train page and
``python -m seqlab train --dataset textcsv:PATH --set text=... --set label=...`` say the same.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from seqlab.app.uploads.upload import UPLOADS, Upload, stored_csv
from seqlab.data.pinned_file import FILE_DEFAULTS, read_pinned_csv, store_csv
from seqlab.data.user_text_classes import COLUMN_DEFAULTS, NAME


@st.cache_data(show_spinner="Reading the file…", max_entries=8)
def _columns(path: str, sha256: str, file_name: str) -> pd.DataFrame:
    """One row per column: its name, its mean text length and its number of distinct values (read once per hash)."""
    table = read_pinned_csv(path, sha256, file_name, NAME)
    return pd.DataFrame({
        "column": table.columns,
        "length": [table[c].astype(str).str.len().mean() for c in table.columns],
        "distinct": [table[c].nunique() for c in table.columns],
    })  # fmt: skip


def text_csv_upload(key: str, data_options: dict) -> dict | None:
    """The upload and the column choices: the ``textcsv`` dataset's file and column options."""
    given = stored_csv(
        "Your labelled texts (.csv)", key, lambda upload: store_csv(upload, upload.name),
        "Comma-separated, one header line, one row per text with its class; UTF-8 (Excel: 'CSV UTF-8').", _columns,
    )  # fmt: skip
    if given is None:
        return None
    stored, found = given
    if len(found) < 2:
        st.error(f"The file has one column ({found.column[0]!r}): add a column with each text's class.")
        return None
    columns = list(found.column)
    # The texts are the longest values; the labels, of the other columns, the one with the fewest distinct values.
    text_guess = found.column[found.length.idxmax()]
    c1, c2 = st.columns(2)
    text = c1.selectbox("Text column", columns, index=columns.index(text_guess), key=f"{key}.text")
    others = found[found.column != text]
    label_guess = others.column[others.distinct.idxmin()]
    candidates = list(others.column)
    label = c2.selectbox(
        "Label column (the class)", candidates, index=candidates.index(label_guess), key=f"{key}.label",
        help="Words or numbers, any number of classes; rows without a label are dropped and counted.",
    )  # fmt: skip
    return {**stored, "text": text, "label": label}


UPLOADS.register(
    NAME,
    Upload(
        text_csv_upload,
        (*FILE_DEFAULTS, *COLUMN_DEFAULTS),
        "Upload a .csv file (one row per text, a column of texts and a column of their classes) to see it as a "
        "text classification dataset; the Train page takes the same file.",
    ),
)
