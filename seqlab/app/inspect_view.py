"""The Inspect page's parts: which run, which input, which layer, and what the trace shows.

The page (``pages/inspect.py``) reads top to bottom and calls these; the
traces and gradients come from ``seqlab.inspect`` through ``seqlab.app.cache``,
the figures from ``seqlab.plots``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import results
from seqlab.app.task_views import OUTCOMES, view_for, view_of
from seqlab.data import SequenceData
from seqlab.inspect import GradientTrace, LayerTrace, Trace, pca
from seqlab.plots import (
    gate_heatmaps,
    gradient_norms,
    internal_label,
    pca_trajectory,
    state_heatmap,
    state_lines,
)
from seqlab.plots.training import loss_axis_title
from seqlab.runs import Run

DEFAULT_UNITS = 16  # larger layers show their most active units first
MAX_LINES = 8  # cell-state lines beyond this are unreadable


# ---------------------------------------------------------------- nothing to inspect


def how_to_train() -> None:
    st.markdown(
        "Train one on the **Train** page: pick a dataset (the energy forecast is the lecture's example), "
        "the **LSTM**, **GRU**, **Elman RNN** or **Echo state network** architecture and a few epochs, "
        "press **Train**. Or from a terminal: `python -m seqlab train --dataset energy --model lstm --epochs 2`."
    )
    st.page_link("pages/train.py", label="Train a model", icon=":material/model_training:")


def explain_no_runs() -> None:
    with st.container(border=True):
        st.markdown("#### No trained runs yet")
        st.markdown("There is nothing to look inside yet: inspection needs a trained recurrent model.")
        how_to_train()


def explain_no_recurrent_run(runs: list[Run]) -> None:
    with st.container(border=True):
        st.markdown("#### No recurrent run to inspect")
        models = sorted({results.model_title(r.meta.model) for r in runs})
        st.markdown(
            f"None of the {len(runs)} saved run(s) has a recurrent layer (models: {', '.join(models)}). "
            "Inspection traces a recurrent cell step by step: its hidden state, gates and gradients through time."
        )
        how_to_train()


def explain_no_recurrent_layer(title: str, unreadable: str | None) -> None:
    with st.container(border=True):
        st.markdown(f"#### {title} has no recurrent layer")
        if unreadable:
            st.markdown(f"Its model file cannot be read: {unreadable}")
        else:
            st.markdown(
                f"The **{title}** sees the whole window at once through feed-forward layers: it keeps no "
                "state from one time step to the next, so there are no hidden states, gates or gradients "
                "through time to show. Pick an Elman RNN, LSTM, GRU or echo state network run."
            )


# ---------------------------------------------------------------- which run, which input


def pick_run(runs: list[Run], recurrent: list[Run]) -> Run:
    """A run chooser listing the recurrent runs (all runs behind a toggle)."""
    show_all = False
    if len(recurrent) < len(runs):
        show_all = st.toggle(
            "Also list runs without a recurrent layer", key="inspect.all",
            help=f"{len(runs) - len(recurrent)} run(s) have no recurrent layer (e.g. the windowed MLP).",
        )
    options = [r.run_id for r in (runs if show_all else recurrent)]
    by_id = {r.run_id: r for r in runs}
    run_id = st.selectbox(
        "Run", options, key="inspect.run",
        format_func=lambda i: f"{results.model_title(by_id[i].meta.model)} on {by_id[i].meta.dataset}  ·  {i}",
    )
    return by_id[run_id]


def time_axis(data: SequenceData, series: bool, origin: int, steps: int) -> tuple[list, str, pd.Index]:
    """The input steps: labels (the timestamps of a window of a series, else 1 .. T), axis title, table index."""
    if series:
        time = list(data.frame.index[origin - data.lookback : origin])
        index = pd.Index([t.strftime("%a %d %b %H:%M") if hasattr(t, "strftime") else int(t) for t in time],
                         name="time")
        return time, "time (the model's input window)", index
    time = list(range(1, steps + 1))
    return time, "step t", pd.Index(time, name="t")


def edit_window(window: np.ndarray, columns: list[str], index: pd.Index, key: str) -> np.ndarray:
    """An expander with the input window as an editable table; the edited window (empty cells: the original)."""
    with st.expander("Edit the input values", icon=":material/edit:"):
        st.caption("Change any value and every picture below follows: what does the state do if the temperature "
                   "drops, or a marker moves? The target (for the gradients) stays the test sample's.")
        original = pd.DataFrame(window, columns=columns, index=index)
        edited = st.data_editor(original, key=key, num_rows="fixed", width="stretch", height=250)
        values = edited.to_numpy(dtype="float32")
        if np.isnan(values).any():
            st.warning("Empty cells are not allowed: using the test sample's values there.")
            values = np.where(np.isnan(values), window, values)
        changed = int((values != window).sum())
        if changed:
            st.caption(f"{changed} value(s) edited.")
            return values
    return window


# ---------------------------------------------------------------- which layer, which units


def pick_layer(tr: Trace, run_id: str) -> tuple[LayerTrace, np.ndarray, str]:
    """Layer and unit choosers: the layer's trace, the unit ids shown (most active first), and a phrase for them."""
    controls = st.columns([2, 3], gap="large")
    with controls[0]:
        keys = [layer.key for layer in tr.layers]
        key = keys[0]
        if len(keys) > 1:
            key = st.selectbox(
                "Layer", keys, key=f"inspect.layer.{run_id}",
                format_func=lambda k: f"{tr.layer(k).label} · {tr.layer(k).kind} · {tr.layer(k).units} units",
                help="Stacked layers read the layer below's output sequence; a bidirectional layer has a "
                     "forward and a backward cell.",
            )
        layer = tr.layer(key)
    with controls[1]:
        n_units = layer.units
        k = n_units
        if n_units > DEFAULT_UNITS:
            every = st.toggle(f"Show all {n_units} units", key=f"inspect.all_units.{run_id}")
            if not every:
                k = st.slider("Units shown (most active first, by mean |hₜ|)", 1, n_units,
                              DEFAULT_UNITS, key=f"inspect.k.{run_id}")
        else:
            st.caption(f"All {n_units} units shown.")
    shown = "all units" if k == n_units else f"the {k} most active of {n_units} units (by mean |hₜ|)"
    return layer, layer.top_units(k), shown


# ---------------------------------------------------------------- beside the pictures


def equations_panel(layer: LayerTrace) -> None:
    """The cell's equations, from its docstring: the code that computed the pictures."""
    with st.container(border=True):
        st.markdown(f"**{layer.kind}: the equations traced**")
        for block in layer.equations:
            # Small, and a trailing remark on a line of its own: the longest lines fit beside the pictures.
            block = block.replace(r"\quad \text{(", r"\\ \text{(")
            st.latex(r"\footnotesize \begin{gathered} " + block + r" \end{gathered}")
        if not layer.equations:
            st.caption("This cell's docstring has no equations.")
        st.caption("From the cell's docstring (`seqlab.layers`): the code that computed the pictures.")


def sample_outcome(run: Run, data: SequenceData, outputs, y_true: np.ndarray) -> None:
    """The model's answer for this input against the truth, as the run's task reads it (``OUTCOMES``)."""
    view_of(OUTCOMES, results.task_of(run), lambda *args: None)(run, data, outputs, y_true)


@view_for(OUTCOMES, "forecast")
def _forecast_outcome(run: Run, data: SequenceData, outputs, y_true: np.ndarray) -> None:
    err = np.abs(np.asarray(outputs) - np.asarray(y_true)).mean()
    target, unit = results.target_unit(run)
    st.metric("Forecast MAE on this window", f"{err:.3g} {unit}".strip(), border=True,
              help=f"The model's {data.horizon}-step forecast of {target} from these inputs, against the truth.")


@view_for(OUTCOMES, "classify")
def _class_outcome(run: Run, data: SequenceData, outputs, y_true: np.ndarray) -> None:
    if data.classes:
        predicted = int(np.asarray(outputs).argmax(axis=-1))
        st.metric("Predicted class", data.classes[predicted], f"true: {data.classes[int(y_true)]}",
                  delta_color="off", delta_arrow="off", border=True)


@view_for(OUTCOMES, "label")
def _labels_outcome(run: Run, data: SequenceData, outputs, y_true: np.ndarray) -> None:
    if data.classes:
        predicted = np.asarray(outputs).argmax(axis=-1)
        right = int((predicted == np.asarray(y_true)).sum())
        st.metric("Steps labelled right", f"{right} of {len(predicted)}", border=True)


@view_for(OUTCOMES, "regress")
def _regression_outcome(run: Run, data: SequenceData, outputs, y_true: np.ndarray) -> None:
    target, unit = results.target_unit(run)
    st.metric(f"Predicted {target}", f"{float(np.ravel(outputs)[0]):.4g} {unit}".strip(),
              f"true: {float(np.ravel(y_true)[0]):.4g}", delta_color="off", delta_arrow="off", border=True)


# ---------------------------------------------------------------- the pictures


def layer_pictures(tr: Trace, layer: LayerTrace, unit_ids: np.ndarray, shown: str, inputs: dict,
                   time: list, time_title: str, time_index: pd.Index) -> None:
    """State heatmap, gates, cell-state (or state) lines and the PCA trajectory of one traced layer."""
    n_units = layer.units
    state_name = internal_label("h", layer.kind)
    state_title = state_name[0].upper() + state_name[1:]
    st.plotly_chart(
        state_heatmap(layer.arrays["h"][:, unit_ids], time, unit_ids, inputs=inputs, kind=layer.kind,
                      total_units=n_units, time_title=time_title, title=f"{state_title} of {layer.label}: {shown}"),
        key="inspect.state",
    )
    st.caption(
        "Top: the inputs the model read (in their own units). Below: one row per unit, one column per time step; "
        "red is positive, blue negative. "
        + ("Stacked layer: it reads the layer below's output sequence." if layer is not tr.layers[0] else "")
    )

    gates = {g: layer.arrays[g][:, unit_ids] for g in layer.gates}
    if gates:
        st.plotly_chart(
            gate_heatmaps(gates, time, unit_ids, kind=layer.kind, total_units=n_units, time_title=time_title,
                          title=f"{'Gates' if layer.kind in ('LSTMCell', 'GRUCell') else 'Inside the step'} "
                                f"of {layer.label}: {shown}"),
            key="inspect.gates",
        )
        if layer.kind == "LSTMCell":
            st.caption("A forget gate near 1 (yellow) keeps the cell state; near 0 it wipes it. The input gate "
                       "lets the candidate in, the output gate decides what the hidden state shows.")
        elif layer.kind == "GRUCell":
            st.caption("Keras convention: an update gate zₜ near 1 keeps the old state, near 0 takes the candidate.")

    lines, trajectory = st.columns(2)
    with lines:
        lined = unit_ids[:MAX_LINES]
        if "c" in layer.arrays:
            st.plotly_chart(
                state_lines(layer.arrays["c"][:, lined], time, lined, name="c", kind=layer.kind,
                            time_title=time_title, title=f"Cell state cₜ: {len(lined)} most active units"),
                key="inspect.cell",
            )
            st.caption("The LSTM's memory: it changes only where the forget and input gates let it.")
        else:
            st.plotly_chart(
                state_lines(layer.arrays["h"][:, lined], time, lined, name="h", kind=layer.kind,
                            time_title=time_title, title=f"{state_title}: {len(lined)} most active units"),
                key="inspect.cell",
            )
            st.caption(f"{layer.kind.removesuffix('Cell')} has no separate cell state: these are its state's lines.")
    with trajectory:
        projection = pca(layer.arrays["h"])
        st.plotly_chart(
            pca_trajectory(projection.points, projection.explained, list(time_index), kind=layer.kind,
                           title=f"Trajectory of the {n_units}-unit state (PCA)"),
            key="inspect.pca",
        )
        st.caption(f"All {n_units} units projected on their two main directions "
                   f"({100 * projection.explained[:2].sum():.0f} % of the variance over this window).")


# ---------------------------------------------------------------- gradients


def gradient_spread(norms: np.ndarray) -> str:
    """How far a gradient's norms range over the window: ``a factor of 1,234`` (or ``down to exactly 0``)."""
    low, high = float(np.min(norms)), float(np.max(norms))
    factor = high / low if low > 0 else float("inf")
    if factor == float("inf"):
        return "down to exactly 0 (underflow)"
    return f"a factor of {factor:,.0f}" if factor < 1e6 else f"a factor of {factor:.1e}"


def gradient_through_time_view(grads: GradientTrace, layer: LayerTrace, time: list, time_title: str,
                               loss_name: str, unit: str) -> None:
    """‖∂L/∂hₜ‖ of every traced layer over the window, and what the chosen layer's spread means."""
    label = loss_axis_title(loss_name, unit)  # "MSE (GW²)", "cross-entropy (nats)"
    st.plotly_chart(
        gradient_norms({g.label: g.norms for g in grads.layers}, time, time_title=time_title,
                       title=f"Gradient through time: ‖∂L/∂hₜ‖ of this sample (L = {grads.loss:.3g}, {label})"),
        key="inspect.bptt",
    )
    st.caption(
        f"How much the loss ({label}) of this sample changes per unit change of the state at step t, "
        "through every step after it (and, in a stack, every layer above). Where the line falls by orders "
        "of magnitude the model can hardly learn from those inputs: the vanishing gradient; a line that "
        f"grows backwards explodes. Across this window {layer.label}'s gradient spans "
        f"{gradient_spread(grads.layer(layer.key).norms)}."
    )
