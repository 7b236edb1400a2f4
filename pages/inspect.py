"""Inspect: inside a trained recurrent model: states, gates, trajectory, gradients through time."""

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import cache, results, state
from seqlab.app.entry import require_entry
from seqlab.inspect import gradient_through_time, pca, saved_recurrent_layers, trace
from seqlab.plots.inspect import (
    gate_heatmaps,
    grad_norm_per_batch,
    gradient_norms,
    internal_label,
    pca_trajectory,
    state_heatmap,
    state_lines,
)
from seqlab.plots.style import axis_title
from seqlab.runs import RunStore
from seqlab.tasks import get_task

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

DEFAULT_UNITS = 16  # larger layers show their most active units first
MAX_LINES = 8  # cell-state lines beyond this are unreadable

st.title("Inspect")
st.caption(
    "Look inside a trained recurrent model, one input sequence at a time: hidden and cell states, every "
    "gate, the state's path, and how far back the gradient reaches. The trace runs the cell's own step "
    "function, the one the layer trains with, so these are the numbers the model computed."
)


@st.cache_data(show_spinner=False, max_entries=512)
def recurrent_names(path: str, created: str) -> tuple[list[str], str | None]:
    """The recurrent layers named in a run's ``model.keras`` (read without loading the model)."""
    try:
        return saved_recurrent_layers(path), None
    except ValueError as err:
        return [], str(err)


@st.cache_resource(show_spinner="Loading the model…", max_entries=4)
def load_model(root: str, run_id: str, created: str):
    return RunStore(root).read(run_id).load_model()


@st.cache_data(show_spinner="Tracing the cells step by step…", max_entries=32)
def traced(root: str, run_id: str, created: str, window: np.ndarray, labels: tuple):
    return trace(load_model(root, run_id, created), window, time_labels=list(labels))


@st.cache_data(show_spinner="Differentiating the loss through time…", max_entries=32)
def gradients(root: str, run_id: str, created: str, window: np.ndarray, target: np.ndarray, loss: str):
    return gradient_through_time(load_model(root, run_id, created), window, target, loss=loss)


def how_to_train() -> None:
    st.markdown(
        "Train one on the **Train** page: pick a dataset (the energy forecast is the lecture's example), "
        "the **LSTM**, **GRU**, **Elman RNN** or **Echo state network** architecture and a few epochs, "
        "press **Train**. Or from a terminal: `python -m seqlab train --dataset energy --model lstm --epochs 2`."
    )
    st.page_link("pages/train.py", label="Train a model", icon=":material/model_training:")


# ---------------------------------------------------------------- which run

store = state.store()
runs = store.list()
if not runs:
    with st.container(border=True):
        st.markdown("#### No trained runs yet")
        st.markdown("There is nothing to look inside yet: inspection needs a trained recurrent model.")
        how_to_train()
    st.stop()

names = {r.run_id: recurrent_names(str(r.keras_path), r.meta.get("created", "")) for r in runs}
recurrent = [r for r in runs if names[r.run_id][0]]
if not recurrent:
    with st.container(border=True):
        st.markdown("#### No recurrent run to inspect")
        models = sorted({results.model_title(r.meta.get("model", "?")) for r in runs})
        st.markdown(
            f"None of the {len(runs)} saved run(s) has a recurrent layer (models: {', '.join(models)}). "
            "Inspection traces a recurrent cell step by step: its hidden state, gates and gradients through time."
        )
        how_to_train()
    st.stop()

choose, sample_col = st.columns([2, 3], gap="large")
with choose:
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
        format_func=lambda i: f"{results.model_title(by_id[i].meta.get('model', ''))} on "
        f"{by_id[i].meta.get('dataset', '?')}  ·  {i}",
    )
run = by_id[run_id]
title = results.model_title(run.meta.get("model", ""))
layer_names, unreadable = names[run_id]
if not layer_names:
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
    st.stop()

try:
    data = cache.dataset(run.spec["dataset"], run.spec.get("data_options", {}))
except (KeyError, ValueError, RuntimeError, OSError) as err:
    st.error(f"Cannot load this run's dataset: {err}")
    st.stop()
test = data.splits["test"]
if len(test) == 0:
    st.info("The test split of this run is empty: there is no sample to inspect.")
    st.stop()

# ---------------------------------------------------------------- which input

task = results.task_of(run)
forecast = task == "forecast"
units_of = run.meta.get("units", {}) or dict(data.units)
features = list(run.meta.get("features") or data.features)
with sample_col:
    i = results.pick_test_item(run, data, len(test), key=f"inspect.sample.{run_id}",
                               label="Test window (forecast origin)" if forecast else "Test sequence")
origin = int(test.origin[i])
window = np.asarray(test.x[i], dtype="float32")  # (T, F) in the data's units
if forecast:
    time = list(data.frame.index[origin - data.lookback : origin])
    time_title = "time (the model's input window)"
else:
    time = list(range(1, window.shape[0] + 1))
    time_title = "step t"

with st.expander("Edit the input values", icon=":material/edit:"):
    st.caption("Change any value and every picture below follows: what does the state do if the temperature "
               "drops, or a marker moves? The target (for the gradients) stays the test sample's.")
    columns = [axis_title(f, units_of.get(f)) for f in features]
    index = pd.Index([t.strftime("%a %d %b %H:%M") if hasattr(t, "strftime") else int(t) for t in time],
                     name="time" if forecast else "t")
    original = pd.DataFrame(window, columns=columns, index=index)
    edited = st.data_editor(original, key=f"inspect.edit.{run_id}.{i}", num_rows="fixed", width="stretch",
                            height=250)
    values = edited.to_numpy(dtype="float32")
    if np.isnan(values).any():
        st.warning("Empty cells are not allowed: using the test sample's values there.")
        values = np.where(np.isnan(values), window, values)
    changed = int((values != window).sum())
    if changed:
        st.caption(f"{changed} value(s) edited.")
        window = values

tr = traced(str(store.root), run_id, run.meta.get("created", ""), window, tuple(time))
if not tr.layers:
    st.error("The model lists a recurrent layer but none ran: nothing to trace.")
    st.stop()

# ---------------------------------------------------------------- which layer, which units

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
unit_ids = layer.top_units(k)
shown = "all units" if k == n_units else f"the {k} most active of {n_units} units (by mean |hₜ|)"
if layer.direction == "backward":
    st.caption("Backward cell: it reads the sequence from the end, so its state at step t has read the inputs "
               "from the last one back to xₜ; its final state is at the first step.")

# ---------------------------------------------------------------- pictures and equations

pictures, maths = st.columns([2, 1], gap="medium")
with maths:
    with st.container(border=True):
        st.markdown(f"**{layer.kind}: the equations traced**")
        for block in layer.equations:
            # Small, and a trailing remark on a line of its own: the longest lines fit beside the pictures.
            block = block.replace(r"\quad \text{(", r"\\ \text{(")
            st.latex(r"\footnotesize \begin{gathered} " + block + r" \end{gathered}")
        if not layer.equations:
            st.caption("This cell's docstring has no equations.")
        st.caption("From the cell's docstring (`seqlab.layers`): the code that computed the pictures.")
    if task == "forecast":
        err = np.abs(np.asarray(tr.outputs) - np.asarray(test.y[i])).mean()
        target, unit = results.target_unit(run)
        st.metric("Forecast MAE on this window", f"{err:.3g} {unit}".strip(), border=True,
                  help=f"The model's {data.horizon}-step forecast of {target} from these inputs, against the truth.")
    elif task in ("classify", "label") and data.classes:
        predicted = np.asarray(tr.outputs).argmax(axis=-1)
        if task == "classify":
            st.metric("Predicted class", data.classes[int(predicted)], f"true: {data.classes[int(test.y[i])]}",
                      delta_color="off", delta_arrow="off", border=True)
        else:
            right = int((predicted == np.asarray(test.y[i])).sum())
            st.metric("Steps labelled right", f"{right} of {len(predicted)}", border=True)
    elif task == "regress":
        target, unit = results.target_unit(run)
        st.metric(f"Predicted {target}", f"{float(np.ravel(tr.outputs)[0]):.4g} {unit}".strip(),
                  f"true: {float(np.ravel(test.y[i])[0]):.4g}", delta_color="off", delta_arrow="off", border=True)

with pictures:
    inputs = {axis_title(f, units_of.get(f)): tr.inputs[:, j] for j, f in enumerate(features)}
    state_name = internal_label("h", layer.kind)
    st.plotly_chart(
        state_heatmap(layer.arrays["h"][:, unit_ids], time, unit_ids, inputs=inputs, kind=layer.kind,
                      total_units=n_units, time_title=time_title,
                      title=f"{state_name[0].upper() + state_name[1:]} of {layer.label}: {shown}"),
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
                            time_title=time_title, title=f"{state_name[0].upper() + state_name[1:]}: "
                                                         f"{len(lined)} most active units"),
                key="inspect.cell",
            )
            st.caption(f"{layer.kind.removesuffix('Cell')} has no separate cell state: these are its state's lines.")
    with trajectory:
        projection = pca(layer.arrays["h"])
        st.plotly_chart(
            pca_trajectory(projection.points, projection.explained,
                           [index[j] for j in range(len(time))], kind=layer.kind,
                           title=f"Trajectory of the {n_units}-unit state (PCA)"),
            key="inspect.pca",
        )
        st.caption(f"All {n_units} units projected on their two main directions "
                   f"({100 * projection.explained[:2].sum():.0f} % of the variance over this window).")

# ---------------------------------------------------------------- gradients

st.subheader("Gradients")
loss_name = get_task(task).loss
target_unit = results.target_unit(run)[1]
loss_label = {"mse": f"MSE in {target_unit}²" if target_unit else "MSE"}.get(
    loss_name, "cross-entropy" if "crossentropy" in loss_name else loss_name)
through_time, per_batch = st.columns(2, gap="large")
with through_time:
    try:
        grads = gradients(str(store.root), run_id, run.meta.get("created", ""), window,
                          np.asarray(test.y[i]), loss_name)
    except (ValueError, NotImplementedError) as err:
        st.warning(f"Cannot compute the gradient through time: {err}")
    else:
        st.plotly_chart(
            gradient_norms({g.label: g.norms for g in grads.layers}, time, time_title=time_title,
                           title=f"Gradient through time: ‖∂L/∂hₜ‖ of this sample ({loss_label.split(' in ')[0]} "
                                 f"L = {grads.loss:.3g}{' ' + target_unit + '²' if loss_name == 'mse' and target_unit else ''})"),
            key="inspect.bptt",
        )
        norms = grads.layer(layer.key).norms
        low, high = float(np.min(norms)), float(np.max(norms))
        factor = high / low if low > 0 else float("inf")
        spread = ("down to exactly 0 (underflow)" if factor == float("inf")
                  else f"a factor of {factor:,.0f}" if factor < 1e6 else f"a factor of {factor:.1e}")
        st.caption(
            f"How much the loss ({loss_label}) of this sample changes per unit change of the state at step t, "
            "through every step after it (and, in a stack, every layer above). Where the line falls by orders "
            "of magnitude the model can hardly learn from those inputs: the vanishing gradient; a line that "
            f"grows backwards explodes. Across this window {layer.label}'s gradient spans {spread}."
        )
with per_batch:
    batches = [b for b in run.history.get("batch", []) if b.get("grad_norm") is not None]
    if batches:
        st.plotly_chart(grad_norm_per_batch(batches, clip_norm=run.spec.get("clip_norm")), key="inspect.grad_norm")
        st.caption("The global norm of the gradient over all weights at every training batch, before clipping "
                   "(from the run's history). Spikes are exploding gradients; gradient clipping caps them.")
    else:
        st.info("This run has no per-batch gradient norms in its history (a closed-form fit, such as the echo "
                "state network's readout, has no gradient steps).")
