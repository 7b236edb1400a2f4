"""Inspect: inside a trained recurrent model: states, gates, trajectory, gradients through time."""

import numpy as np
import streamlit as st

from seqlab.app import cache, results, state
from seqlab.app import inspect_view as view
from seqlab.app.entry import require_entry
from seqlab.app.task_views import is_series
from seqlab.plots import axis_title, grad_norm_per_batch
from seqlab.tasks import get_task

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

st.title("Inspect")
st.caption(
    "Look inside a trained recurrent model, one input sequence at a time: hidden and cell states, every "
    "gate, the state's path, and how far back the gradient reaches. The trace runs the cell's own step "
    "function, the one the layer trains with, so these are the numbers the model computed."
)

# ---------------------------------------------------------------- which run

runs, broken = state.store().scan()
if broken:
    st.warning(f"{len(broken)} folder(s) in the run store are not readable runs ({', '.join(sorted(broken))}): "
               "the Models page says why and deletes them.", icon=":material/folder_off:")
if not runs:
    view.explain_no_runs()
    st.stop()
names = {r.run_id: cache.recurrent_layers(r) for r in runs}
for run_id, (_, unreadable) in names.items():
    if unreadable:
        st.warning(f"Run `{run_id}` cannot be inspected: {unreadable}. Retrain it or delete it on Models.",
                   icon=":material/broken_image:")
readable = [r for r in runs if not names[r.run_id][1]]
recurrent = [r for r in readable if names[r.run_id][0]]
if not recurrent:
    view.explain_no_recurrent_run(readable) if readable else view.how_to_train()
    st.stop()

choose, sample_col = st.columns([2, 3], gap="large")
with choose:
    run = view.pick_run(runs, recurrent)
run_id = run.run_id
layer_names, unreadable = names[run_id]
if not layer_names:
    view.explain_no_recurrent_layer(results.model_title(run.meta.model), unreadable)
    st.stop()
if run.meta.input_dtype != "float32":  # token ids: the window editor and the pictures read numbers per feature
    st.info(f"Inspect traces numeric windows; this {run.meta.task} run reads token ids, which it cannot show yet. "
            "Pick another run.")
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
series = is_series(task)
units_of = run.meta.units
features = run.meta.features
with sample_col:
    i = results.pick_test_item(run, data, len(test), key=f"inspect.sample.{run_id}",
                               label="Test window (forecast origin)" if series else "Test sequence")
window = np.asarray(test.x[i], dtype="float32")  # (T, F) in the data's units
time, time_title, time_index = view.time_axis(data, series, int(test.origin[i]), window.shape[0])
columns = [axis_title(f, units_of.get(f)) for f in features]
window = view.edit_window(window, columns, time_index, key=f"inspect.edit.{run_id}.{i}")

try:
    tr = cache.run_trace(run, window, time)
except (ValueError, OSError, TypeError, KeyError) as err:  # model file or input the trace cannot use
    st.error(f"Cannot trace this run: {err}. Retrain it, or pick another run.")
    st.stop()
if not tr.layers:
    st.error("The model lists a recurrent layer but none ran: nothing to trace.")
    st.stop()

# ---------------------------------------------------------------- which layer, which units

layer, unit_ids, shown = view.pick_layer(tr, run_id)
if layer.direction == "backward":
    st.caption("Backward cell: it reads the sequence from the end, so its state at step t has read the inputs "
               "from the last one back to xₜ; its final state is at the first step.")

# ---------------------------------------------------------------- pictures and equations

pictures, maths = st.columns([2, 1], gap="medium")
with maths:
    view.equations_panel(layer)
    view.sample_outcome(run, data, tr.outputs, test.y[i])
with pictures:
    inputs = {column: tr.inputs[:, j] for j, column in enumerate(columns)}
    view.layer_pictures(tr, layer, unit_ids, shown, inputs, time, time_title, time_index)

# ---------------------------------------------------------------- gradients

st.subheader("Gradients")
through_time, per_batch = st.columns(2, gap="large")
with through_time:
    try:
        loss_name = get_task(task).loss
        grads = cache.run_gradients(run, window, np.asarray(test.y[i]), loss_name)
    except (ValueError, NotImplementedError) as err:
        st.warning(f"Cannot compute the gradient through time: {err}")
    else:
        view.gradient_through_time_view(grads, layer, time, time_title, loss_name, results.target_unit(run)[1])
with per_batch:
    batches = [b for b in run.history.get("batch", []) if b.get("grad_norm") is not None]
    if batches:
        st.plotly_chart(grad_norm_per_batch(batches, clip_norm=run.spec.get("clip_norm")), key="inspect.grad_norm")
        st.caption("The global norm of the gradient over all weights at every training batch, before clipping "
                   "(from the run's history). Spikes are exploding gradients; gradient clipping caps them.")
    else:
        st.info("This run has no per-batch gradient norms in its history (a closed-form fit, such as the echo "
                "state network's readout, has no gradient steps).")
