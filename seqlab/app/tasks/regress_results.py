"""Regression runs' result views: predicted against actual on the test split, one test sequence served.

Registered for the ``regress`` task (``seqlab.app.task_views``).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from seqlab.app import figures
from seqlab.app.format import baseline_label, with_unit
from seqlab.app.results import reads_images, sample_frame, target_unit
from seqlab.app.task_views import OUTPUT_TEXT, PREDICTIONS, SERVING, view_for
from seqlab.data import SequenceData
from seqlab.plots import predicted_vs_actual, sample_preview
from seqlab.runs import Run


@view_for(PREDICTIONS, "regress")
def _regression_view(run: Run, preds: dict, data: SequenceData, key: str) -> None:
    target, unit = target_unit(run)
    fig = predicted_vs_actual(
        preds["y_true"], preds["y_pred"], name=target, unit=unit,
        baseline=preds.get("baseline_mean"), baseline_name=baseline_label("mean"),
    )
    figures.show(fig, key=f"{key}.scatter")
    st.caption("Every test sequence: the closer to the dashed diagonal, the better.")


@view_for(SERVING, "regress")
def _served_regression(run: Run, data: SequenceData, i: int, served, stored, key: str) -> list:
    target, unit = target_unit(run)
    test = data.splits["test"]
    figures.show(
        sample_preview(sample_frame(data, test.origin[i]), list(data.features), data.target, data.units,
                       title="The input sequence", image=reads_images(data.name)),
        key=f"{key}.input",
    )
    return [
        (f"Actual {target}", with_unit(float(np.ravel(test.y[i])[0]), unit)),
        (f"SavedModel {target}", with_unit(float(np.ravel(served)[0]), unit)),
    ]


view_for(OUTPUT_TEXT, "regress")(
    lambda meta: f"{meta.target}" + (f" ({meta.horizon} values)" if meta.horizon != 1 else "")
)
