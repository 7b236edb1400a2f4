"""The state-space lesson's view (see ``seqlab.app.lessons.lesson_views``): every run's test error, then the S4D's state.

The state is the last state-space layer's, traced by Inspect's probe
(``seqlab.inspect.state_space``) on one test sequence, read as Inspect reads it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import figures
from seqlab.app.inspect.inspect_view import sample_outcome
from seqlab.app.lessons.lesson_views import lesson_view, traced_test_item
from seqlab.app.run_table import run_title
from seqlab.inspect.state_space import StateSpaceTrace
from seqlab.plots import state_heatmap
from seqlab.runs import Run


def _errors(runs: list[Run]) -> pd.DataFrame:
    """Each finished run's test error beside the mean guess's (the metrics its run recorded)."""
    rows = {}
    for run in runs:
        metrics = run.metrics or {}
        model, mean = metrics.get("model", {}), metrics.get("baselines", {}).get("mean", {})
        if "mse" in model:
            rows[run_title(run, runs)] = {"test MSE": model["mse"], "mean guess's MSE": mean.get("mse", np.nan)}
    return pd.DataFrame.from_dict(rows, orient="index")


@lesson_view("state-space-memory")
def state_space_memory(runs: list[Run], key: str) -> None:
    """Both runs' test errors, then the S4D's last layer's state |xₜ| over one test sequence, channel by channel."""
    errors = _errors(runs)
    if not errors.empty:
        st.dataframe(errors.style.format("{:.4f}"))
    stateful = [run for run in runs if run.meta.model in ("s4d", "mamba")]
    traced = traced_test_item(stateful, key, "The S4D run did not finish: run the lesson again to see its state.")
    if traced is None:
        return
    run, data, inp, tr = traced
    layer = tr.of(StateSpaceTrace)[-1]
    top = layer.top_channels(layer.channels)
    channel = int(st.selectbox("Channel", top, format_func=lambda h: f"channel {h}", key=f"{key}.channel",
                               help="Most active first (mean |xₜ|): each channel is its own linear system."))
    figures.show(
        state_heatmap(layer.channel(channel), inp.time, np.arange(layer.modes), inputs=inp.inputs, name="magnitude",
                      time_title=inp.time_title, unit="mode",
                      title=f"|xₜ| of {layer.name}, channel {channel}: one row per mode"),
        key=f"{key}.state",
    )
    x = np.asarray(inp.x)
    marks = np.flatnonzero(x[:, -1] > 0.5) + 1 if x.ndim == 2 and data.features[-1] == "marker" else []
    st.caption(
        "Each mode's magnitude |xₜ| over the sequence: the state changes where a marked value is read and "
        "holds it until the answer." + (f" The marked values are at steps {', '.join(map(str, marks))}."
                                        if len(marks) else "")
    )
    sample_outcome(run, data, tr.outputs, inp.y_true)
