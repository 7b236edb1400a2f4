"""The Inspect page's parts: which run, which input, which layer, and what the trace shows.

The page (``pages/inspect.py``) reads top to bottom and calls these; the
traces and gradients come from ``seqlab.inspect`` through ``seqlab.app.cache``,
the figures from ``seqlab.plots``. How the page reads its input is the run
task's ``INSPECT_INPUTS`` view (a numeric window editor here; a text box in
``seqlab.app.inspect.inspect_text_view``); what it shows of a trace is the
``RESULT_VIEWS`` view of each result type (recurrent cells here; an HMM in
``seqlab.app.inspect.hmm_view``; attention heads in ``seqlab.app.inspect.attention_view``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import cache, figures, results
from seqlab.app.format import stacked_latex
from seqlab.app.task_views import INSPECT_INPUTS, OUTCOMES, is_series, view_for, view_of
from seqlab.data import SequenceData
from seqlab.inspect import GradientTrace, LayerResult, LayerTrace, Trace, pca, saved_traced_layers
from seqlab.models import get_architecture
from seqlab.plots import (
    axis_title,
    gate_heatmaps,
    grad_norm_per_batch,
    gradient_norms,
    internal_label,
    pca_trajectory,
    state_heatmap,
    state_lines,
)
from seqlab.tasks.loss_scale import loss_axis_title
from seqlab.registry import Registry
from seqlab.runs import Run
from seqlab.tasks import get_task

DEFAULT_UNITS = 16  # larger layers show their most active units first
MAX_LINES = 8  # cell-state lines beyond this are unreadable
# What the page shows of each kind of traced layer: result type name -> (run, data, trace, input) -> None.
RESULT_VIEWS: Registry[Callable] = Registry("inspect result view")


@dataclass(frozen=True)
class InspectInput:
    """One input as Inspect reads it (``INSPECT_INPUTS``), and what goes with it.

    Attributes:
        x: what the trace reads: a float window ``(T, F)`` or token ids ``(T,)``;
            ``[window, future]`` for a forecaster given the known future.
        time: one label per step (timestamps, 1 .. T, or the tokens).
        time_title: the time axis's title.
        time_index: the steps as a table index (also the trajectory's hover labels).
        inputs: axis title -> ``(T,)`` values drawn above the state heatmap (none for tokens).
        y_true: the truth for the outcome view; ``None`` when the input has none (own text).
        gradient: ``(x, target, time)`` of the loss through time, or ``None``.
        no_gradient: why there is no ``gradient`` (shown instead of the figure).
        about_gradient: what the loss of the gradient through time measures here.
        original: the input before its values were edited, when they were (else None).
        original_trace: the trace of ``original`` (filled by the page).
    """

    x: np.ndarray
    time: list
    time_title: str
    time_index: pd.Index
    inputs: dict = field(default_factory=dict)
    y_true: object = None
    gradient: tuple | None = None
    no_gradient: str = ""
    about_gradient: str = "this sample's loss"
    original: object = None  # the input before its values were edited (None: not edited)
    original_trace: Trace | None = None  # its trace: the units keep its order, the pictures show the change


@st.cache_data(show_spinner=False, max_entries=512)
def _traced_layers(path: str, created: str) -> tuple[list[str], str | None]:
    try:
        return saved_traced_layers(path), None
    except ValueError as err:
        return [], str(err)


def traced_layers(run: Run) -> tuple[list[str], str | None]:
    """The layers Inspect looks inside (recurrent, HMM, attention), read from the run's ``model.keras`` without
    loading it, and why the file cannot be read (``None`` when it can)."""
    return _traced_layers(str(run.keras_path), run.meta.created)


# ---------------------------------------------------------------- nothing to inspect


def how_to_train() -> None:
    st.markdown(
        "Train one on the **Train** page: pick a dataset (the energy forecast is the lecture's example, "
        "`pydoc` the text one), the **LSTM**, **GRU**, **Elman RNN**, **Echo state network** or, for text, "
        "**Hidden Markov model** architecture and a few epochs, press **Train**. Or from a terminal: "
        "`python -m seqlab train --dataset energy --model lstm --epochs 2`."
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
            f"None of the {len(runs)} saved run(s) has a recurrent layer or a hidden Markov model (models: "
            f"{', '.join(models)}). Inspection traces a recurrent cell step by step (its hidden state, gates and "
            "gradients through time), an HMM's hidden states (posteriors and Viterbi path) or a Transformer's "
            "attention, head by head."
        )
        how_to_train()


def explain_no_traced_layer(model: str, unreadable: str | None) -> None:
    """Why a run has nothing to trace: its file is unreadable, or its architecture keeps no hidden state."""
    title = results.model_title(model)
    with st.container(border=True):
        st.markdown(f"#### {title} has no recurrent layer or hidden Markov model: nothing to trace")
        if unreadable:
            st.markdown(f"Its model file cannot be read: {unreadable}")
            return
        try:
            about = get_architecture(model).description
        except ValueError:
            about = ""
        st.markdown(
            f"The **{title}** keeps no hidden state from one time step to the next, so there are no states, "
            f"gates or gradients through time to show. {about}"
        )
        st.markdown("Pick an Elman RNN, LSTM, GRU, echo state network, hidden Markov model or Transformer run.")


# ---------------------------------------------------------------- which run, which input


def pick_run(runs: list[Run], recurrent: list[Run]) -> Run:
    """A run chooser listing the runs with a traced layer (all runs behind a toggle)."""
    show_all = False
    if len(recurrent) < len(runs):
        show_all = st.toggle(
            "Also list runs without a recurrent layer", key="inspect.all",
            help=f"{len(runs) - len(recurrent)} run(s) have no recurrent layer or HMM (e.g. the windowed MLP, "
                 "the Markov chain).",
        )
    options = [r.run_id for r in (runs if show_all else recurrent)]
    by_id = {r.run_id: r for r in runs}
    run_id = st.selectbox(
        "Run", options, key="inspect.run",
        format_func=lambda i: results.run_label(by_id[i]),
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


@view_for(INSPECT_INPUTS, "forecast", "classify", "label", "regress")
def numeric_window(run: Run, data: SequenceData, i: int, key: str) -> InspectInput:
    """Test window ``i`` of a numeric run, in an editable table; its target drives the gradients."""
    test = data.splits["test"]
    window = np.asarray(test.x[i], dtype="float32")  # (T, F) in the data's units
    time, time_title, time_index = time_axis(data, is_series(results.task_of(run)), int(test.origin[i]),
                                             window.shape[0])
    columns = [axis_title(f, run.meta.units.get(f)) for f in run.meta.features]
    raw, window = window, edit_window(window, columns, time_index, key=key)
    future = [] if test.future is None else [test.future[i]]  # the known future stays as it was
    x = [window, *future] if future else window
    return InspectInput(
        original=None if window is raw else ([raw, *future] if future else raw),
        x=x, time=time, time_title=time_title, time_index=time_index,
        inputs={column: window[:, j] for j, column in enumerate(columns)}, y_true=test.y[i],
        gradient=(x, np.asarray(test.y[i]), time),
    )


def _reader(run: Run):
    return view_of(INSPECT_INPUTS, results.task_of(run), None, text=results.reads_text(run))


def inspectable(run: Run) -> bool:
    """Inspect can read an input for the run's task (a translation is looked inside on the Translate page)."""
    return _reader(run) is not None


def read_input(run: Run, data: SequenceData, i: int, key: str) -> InspectInput | None:
    """The run's task's way of reading Inspect's input (``INSPECT_INPUTS``)."""
    return _reader(run)(run, data, i, key)


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


def pick_layer(tr: Trace, run_id: str, original: Trace | None = None) -> tuple[LayerTrace, np.ndarray, str]:
    """Layer and unit choosers: the layer's trace, the unit ids shown (most active first), and a phrase for them.

    With the ``original`` trace of an edited input the units keep its order, so before and after line up.
    """
    controls = st.columns([2, 3], gap="large")
    with controls[0]:
        keys = [layer.key for layer in tr.cells]
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
    ranked = (original.layer(layer.key) if original is not None else layer).top_units(k)
    return layer, ranked, shown


# ---------------------------------------------------------------- beside the pictures


def equations_panel(layer: LayerResult, source: str = "the cell's docstring") -> None:
    """The layer's equations, from its docstring: the code that computed the pictures."""
    with st.container(border=True):
        st.markdown(f"**{layer.kind}: the equations traced**")
        for block in layer.equations:
            st.latex(stacked_latex(block))  # the longest lines fit beside the pictures
        if not layer.equations:
            st.caption(f"{source[0].upper()}{source[1:]} has no equations.")
        st.caption(f"From {source} (`seqlab.layers`): the code that computed the pictures.")


def sample_outcome(run: Run, data: SequenceData, outputs, y_true: np.ndarray) -> None:
    """The model's answer for this input against the truth, as the run's task reads it (``OUTCOMES``)."""
    view = view_of(OUTCOMES, results.task_of(run), lambda *args: None, text=results.reads_text(run))
    view(run, data, outputs, y_true)


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
        truth = f"true: {data.classes[int(y_true)]}" if y_true is not None else None  # own input: no truth
        st.metric("Predicted class", data.classes[predicted], truth, delta_color="off", delta_arrow="off",
                  border=True)


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
                   time: list, time_title: str, time_index: pd.Index, before: LayerTrace | None = None) -> None:
    """State heatmap, gates, cell-state (or state) lines and the PCA trajectory of one traced layer.

    ``before``: the same layer on the input as it was before editing; its state is drawn
    as the change (edited − original) and dashed beside the lines.
    """
    n_units = layer.units
    state_name = internal_label("h", layer.kind)
    state_title = state_name[0].upper() + state_name[1:]
    figures.show(
        state_heatmap(layer.arrays["h"][:, unit_ids], time, unit_ids, inputs=inputs, kind=layer.kind,
                      total_units=n_units, time_title=time_title, title=f"{state_title} of {layer.label}: {shown}"),
        key="inspect.state",
    )
    st.caption(
        ("Top: the inputs the model read (in their own units). Below: one" if inputs else "One")
        + " row per unit, one column per time step; red is positive, blue negative. "
        + ("Stacked layer: it reads the layer below's output sequence." if layer is not tr.cells[0] else "")
    )
    if before is not None:
        change = layer.arrays["h"][:, unit_ids] - before.arrays["h"][:, unit_ids]
        figures.show(
            state_heatmap(change, time, unit_ids, kind=layer.kind, total_units=n_units, time_title=time_title,
                          name="delta", title=f"What the edit changed: {state_name} edited − original"),
            key="inspect.state_change",
        )
        st.caption("The same units in the same order, before and after your edit: white where the edit changed "
                   "nothing, so you see how far and how long its effect runs.")

    gates = {g: layer.arrays[g][:, unit_ids] for g in layer.gates}
    if gates:
        figures.show(
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
        name = "c" if "c" in layer.arrays else "h"
        original = before.arrays[name][:, lined] if before is not None else None
        if name == "c":
            figures.show(
                state_lines(layer.arrays["c"][:, lined], time, lined, name="c", kind=layer.kind,
                            time_title=time_title, title=f"Cell state cₜ: {len(lined)} most active units",
                            original=original),
                key="inspect.cell",
            )
            st.caption("The LSTM's memory: it changes only where the forget and input gates let it.")
        else:
            figures.show(
                state_lines(layer.arrays["h"][:, lined], time, lined, name="h", kind=layer.kind,
                            time_title=time_title, title=f"{state_title}: {len(lined)} most active units",
                            original=original),
                key="inspect.cell",
            )
            st.caption(f"{layer.kind.removesuffix('Cell')} has no separate cell state: these are its state's lines.")
    with trajectory:
        projection = pca(layer.arrays["h"])
        figures.show(
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
                               loss_name: str, unit: str, about: str = "this sample's loss") -> None:
    """‖∂L/∂hₜ‖ of every traced layer over the window, and what the chosen layer's spread means."""
    label = loss_axis_title(loss_name, unit)  # "MSE (GW²)", "cross-entropy (nats)"
    figures.show(
        gradient_norms({g.label: g.norms for g in grads.layers}, time, time_title=time_title,
                       title="Gradient through time: ‖∂L/∂hₜ‖"),
        key="inspect.bptt",
    )
    st.caption(
        f"How much {about} (L = {grads.loss:.3g}, {label}) changes per unit change of the state at step t, "
        "through every step after it (and, in a stack, every layer above). Where the line falls by orders "
        "of magnitude the model can hardly learn from those inputs: the vanishing gradient; a line that "
        f"grows backwards explodes. Across this window {layer.label}'s gradient spans "
        f"{gradient_spread(grads.layer(layer.key).norms)}."
    )


def gradients_section(run: Run, layer: LayerTrace, inp: InspectInput) -> None:
    """The gradient through time of this input (or why there is none) beside the run's per-batch gradient norms."""
    st.subheader("Gradients")
    through_time, per_batch = st.columns(2, gap="large")
    with through_time:
        if inp.gradient is None:
            st.info(inp.no_gradient)
        else:
            x, target, time = inp.gradient
            try:
                loss_name = get_task(results.task_of(run)).loss
                grads = cache.run_gradients(run, x, target, loss_name)
            except (ValueError, NotImplementedError) as err:
                st.warning(f"Cannot compute the gradient through time: {err}")
            else:
                gradient_through_time_view(grads, layer, time, inp.time_title, loss_name,
                                           results.target_unit(run)[1], about=inp.about_gradient)
    with per_batch:
        batches = [b for b in run.history.get("batch", []) if b.get("grad_norm") is not None]
        if batches:
            figures.show(grad_norm_per_batch(batches, clip_norm=run.spec.get("clip_norm")),
                            key="inspect.grad_norm")
            st.caption("The global norm of the gradient over all weights at every training batch, before "
                       "clipping (from the run's history). Spikes are exploding gradients; gradient clipping "
                       "caps them.")
        else:
            st.info("This run has no per-batch gradient norms in its history (a closed-form fit, such as the "
                    "echo state network's readout, has no gradient steps).")


@view_for(RESULT_VIEWS, "LayerTrace")
def cells_view(run: Run, data: SequenceData, tr: Trace, inp: InspectInput) -> None:
    """A recurrent model: layer and units, state and gate pictures, the cell's equations, the gradients."""
    layer, unit_ids, shown = pick_layer(tr, run.run_id, inp.original_trace)
    if layer.direction == "backward":
        st.caption("Backward cell: it reads the sequence from the end, so its state at step t has read the "
                   "inputs from the last one back to xₜ; its final state is at the first step.")
    pictures, maths = st.columns([2, 1], gap="medium")
    with maths:
        equations_panel(layer)
        sample_outcome(run, data, tr.outputs, inp.y_true)
    with pictures:
        before = inp.original_trace.layer(layer.key) if inp.original_trace is not None else None
        layer_pictures(tr, layer, unit_ids, shown, inp.inputs, inp.time, inp.time_title, inp.time_index, before)
    gradients_section(run, layer, inp)


def show_trace(run: Run, data: SequenceData, tr: Trace, inp: InspectInput) -> None:
    """Each kind of traced layer through its ``RESULT_VIEWS`` view, once per kind, in the model's order."""
    kinds = list(dict.fromkeys(type(layer).__name__ for layer in tr.layers))
    for kind in kinds:
        if kind in RESULT_VIEWS:
            RESULT_VIEWS.get(kind)(run, data, tr, inp)
        else:
            st.info(f"This model has a traced layer ({kind}) that Inspect cannot draw yet.")
