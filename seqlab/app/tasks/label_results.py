"""Numeric label runs' result views: a test sequence's labels by the model and the baselines, and served.

Registered for the ``label`` task (``seqlab.app.task_views``); taggers of text
add theirs as ``label.text`` (``seqlab.app.tasks.text_classes_view``).
"""

from __future__ import annotations

import numpy as np

from seqlab.app import figures
from seqlab.app.format import baseline_label
from seqlab.app.results import classes_of, pick_test_item
from seqlab.app.task_views import OUTPUT_TEXT, PREDICTIONS, SERVING, view_for
from seqlab.data import SequenceData
from seqlab.plots import label_sequence
from seqlab.runs import Run


@view_for(PREDICTIONS, "label")
def _labels_view(run: Run, preds: dict, data: SequenceData, key: str) -> None:
    classes = classes_of(run, data)
    i = pick_test_item(run, data, len(preds["origin"]), key=f"{key}.item")
    rows = {"truth": preds["y_true"][i], "model": preds["y_pred"][i]}
    rows.update({baseline_label(k.removeprefix("baseline_")): preds[k][i] for k in preds if k.startswith("baseline_")})
    figures.show(label_sequence(rows, classes, title=f"Test sequence #{i + 1}"), key=f"{key}.labels")


@view_for(SERVING, "label")
def _served_labels(run: Run, data: SequenceData, i: int, served, stored, key: str) -> list:
    classes = classes_of(run, data)
    rows = {"truth": data.splits["test"].y[i], "SavedModel": np.argmax(served, axis=-1)}
    figures.show(label_sequence(rows, classes, title="SavedModel labels"), key=f"{key}.labels")
    return [("Steps right", f"{int((rows['SavedModel'] == rows['truth']).sum())} of {len(rows['truth'])}")]


view_for(OUTPUT_TEXT, "label")(lambda meta: f"{meta.target} at every step ({len(meta.classes or [])} classes)")
