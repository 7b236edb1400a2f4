"""The ``textcsv`` dataset: the user's own CSV of labelled texts as classification data.

Its options pin the file (``path``, ``sha256``, ``file_name``: see
``seqlab.data.pinned_file``) and name its ``text`` and ``label`` columns. The
file is read through ``seqlab.inputs.read_csv``; rows without a label are
dropped (said in ``load_notes``); labels may be words or numbers, any number of
classes (numbers are ordered as numbers, words alphabetically); then the texts
go through ``seqlab.data.text_classes`` like every text classification dataset.
"""

from __future__ import annotations

import pandas as pd

from seqlab.data.pinned_file import FILE_DEFAULTS, read_pinned_csv
from seqlab.data.registry import DatasetInfo, register
from seqlab.data.sequence_data import SequenceData
from seqlab.data.text_classes import CLASS_TEXT_CHOICES, CLASS_TEXT_DEFAULTS, CLASS_TEXT_RANGES, text_class_data

NAME = "textcsv"
COLUMN_DEFAULTS = {"text": "", "label": ""}
LICENCE = "yours: the file is read on this machine and never leaves it"


def labelled_texts(
    path: str, sha256: str = "", file_name: str = "", text: str = "", label: str = ""
) -> tuple[pd.DataFrame, tuple[str, ...], list[str]]:
    """Columns ``text`` and ``label`` (class names as text) of the rows with a label; the classes; the notes."""
    raw = read_pinned_csv(path, sha256, file_name, NAME)
    columns = list(raw.columns)
    if not text or not label:
        raise ValueError(
            "Choose the column of texts and the column of labels (text=COLUMN label=COLUMN; on the command line "
            f"--set text=COLUMN --set label=COLUMN); the file's columns: {columns}."
        )
    for option, column in (("text", text), ("label", label)):
        if column not in raw.columns:
            raise ValueError(f"{option}: column {column!r} is not in the file; its columns: {columns}.")
    if text == label:
        raise ValueError(f"The text and the label are the same column {text!r}: choose two different columns.")
    labels = class_names(raw[label])
    has_label = labels.notna()
    notes = []
    if not has_label.any():
        raise ValueError(f"The label column {label!r} is empty on every row: give each text its class.")
    if not has_label.all():
        notes.append(f"Dropped {int((~has_label).sum()):,} of {len(raw):,} rows without a label in {label!r}.")
    frame = pd.DataFrame({
        "text": raw[text][has_label].fillna("").astype(str),
        "label": labels[has_label],
    }).reset_index(drop=True)  # fmt: skip
    numbers = pd.to_numeric(raw[label][has_label], errors="coerce")
    names = set(frame["label"])
    order = sorted(names, key=float) if numbers.notna().all() else sorted(names)
    return frame, tuple(order), notes


def class_names(column: pd.Series) -> pd.Series:
    """The labels as text, missing ones (empty, NaN) as NA; whole numbers read as floats lose their ``.0``."""
    if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        whole = column.dropna().eq(column.dropna().round()).all()
        return column.map(lambda v: pd.NA if pd.isna(v) else f"{v:.0f}" if whole else f"{v:g}")
    names = column.astype("string").str.strip()
    return names.mask(names == "")


def textcsv_frame(**options) -> pd.DataFrame:
    """The labelled texts as loaded, for a preview."""
    return labelled_texts(**{k: options.get(k, v) for k, v in {**FILE_DEFAULTS, **COLUMN_DEFAULTS}.items()})[0]


def load_textcsv(path: str, sha256: str, file_name: str, text: str, label: str, **options) -> SequenceData:
    frame, classes, notes = labelled_texts(path, sha256, file_name, text, label)
    return text_class_data(
        NAME, frame["text"], frame["label"], classes, label_name=f"the label column {label!r}", notes=notes,
        extra_options={"path": path, "sha256": sha256, "file_name": file_name, "text": text, "label": label},
        **options,
    )  # fmt: skip


register(
    DatasetInfo(
        name=NAME,
        title="Your own CSV of labelled texts",
        task="classify",
        description=(
            "Texts and their classes from your own CSV file (an upload, or `--dataset textcsv:PATH --set "
            "text=COLUMN --set label=COLUMN`): any number of classes, named by words or numbers. Rows without a "
            "label or with an empty text are dropped and counted; longer texts are trimmed to max_tokens. A "
            "stratified split fixed by seed; the tokeniser is fitted on the training texts only. The spec "
            "records the file's name and SHA-256, so a changed file is refused rather than silently trained on."
        ),
        source="your file, read through seqlab's input checks (size limit, encoding, well-formed CSV)",
        licence=LICENCE,
        frame=textcsv_frame,
        load=load_textcsv,
        defaults={**CLASS_TEXT_DEFAULTS, **COLUMN_DEFAULTS, **FILE_DEFAULTS},
        ranges=CLASS_TEXT_RANGES,
        choices=CLASS_TEXT_CHOICES,
    )
)
