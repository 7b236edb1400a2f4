"""Numeric classify runs' result views: the confusion matrix, one test sequence served with its class probabilities.

Registered for the ``classify`` task (``seqlab.app.task_views``); text classifiers
add theirs as ``classify.text`` (``seqlab.app.tasks.text_classes_view``).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from seqlab.app import figures
from seqlab.app.results import classes_of, reads_images, sample_frame
from seqlab.app.task_views import OUTPUT_TEXT, PREDICTIONS, SERVING, view_for
from seqlab.data import SequenceData
from seqlab.plots import class_probabilities, confusion_matrix, sample_preview
from seqlab.runs import Run


@view_for(PREDICTIONS, "classify")
def _confusion_view(run: Run, preds: dict, data: SequenceData, key: str) -> None:
    classes = classes_of(run, data)
    figures.show(confusion_matrix(preds["y_true"], preds["y_pred"], classes), key=f"{key}.confusion")
    st.caption("Test sequences by true class (rows) and predicted class (columns): a good model fills the diagonal.")


@view_for(SERVING, "classify")
def _served_class(run: Run, data: SequenceData, i: int, served, stored, key: str) -> list:
    classes = classes_of(run, data)
    test = data.splits["test"]
    truth = int(test.y[i])
    bars = {"SavedModel": served}
    if stored is not None:
        bars["stored at training"] = stored
    left, right = st.columns(2)
    left.plotly_chart(
        sample_preview(sample_frame(data, test.origin[i]), list(data.features), data.target, data.units,
                       classes=classes, title="The input sequence", image=reads_images(data.name)),
        key=f"{key}.input",
    )
    right.plotly_chart(class_probabilities(bars, classes, truth), key=f"{key}.probs")
    return [("True class", classes[truth]), ("SavedModel predicts", classes[int(np.argmax(served))])]


view_for(OUTPUT_TEXT, "classify")(lambda meta: f"{meta.target} (one of {len(meta.classes or [])} classes)")
