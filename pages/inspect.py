"""Inspect: inside a trained model: recurrent states, gates, gradients through time; an HMM's states; attention."""

import dataclasses

import streamlit as st

from seqlab.app import cache, results, state
from seqlab.app.inspect import inspect_view as view
from seqlab.app.entry import require_entry
from seqlab.app.task_views import is_series

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

st.title("Inspect")
st.caption(
    "Look inside a trained model, one input sequence at a time: a recurrent cell's hidden and cell states, "
    "every gate, the state's path and how far back the gradient reaches; a hidden Markov model's states "
    "behind each token; a Transformer's attention, layer by layer and head by head. The trace runs the layer's "
    "own code (the cell's step, the HMM's forward-backward and Viterbi, the block's attention), so these are "
    "the numbers the model computed."
)

# ---------------------------------------------------------------- which run

runs, broken = state.store().scan()
if broken:
    st.warning(f"{len(broken)} folder(s) in the run store are not readable runs ({', '.join(sorted(broken))}): "
               "the Models page says why and deletes them.", icon=":material/folder_off:")
if not runs:
    view.explain_no_runs()
    st.stop()
names = {r.run_id: view.traced_layers(r) for r in runs}
for run_id, (_, unreadable) in names.items():
    if unreadable:
        st.warning(f"Run `{run_id}` cannot be inspected: {unreadable}. Retrain it or delete it on Models.",
                   icon=":material/broken_image:")
readable = [r for r in runs if not names[r.run_id][1]]
traceable = [r for r in readable if names[r.run_id][0] and view.inspectable(r)]
if not traceable:
    view.explain_no_recurrent_run(readable) if readable else view.how_to_train()
    st.stop()

choose, sample_col = st.columns([2, 3], gap="large")
with choose:
    run = view.pick_run(runs, traceable)
run_id = run.run_id
layer_names, unreadable = names[run_id]
if not layer_names:
    view.explain_no_traced_layer(run.meta.model, unreadable)
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

# ---------------------------------------------------------------- which input (the task's reader)

with sample_col:
    i = results.pick_test_item(run, data, len(test), key=f"inspect.sample.{run_id}",
                               label="Test window (forecast origin)" if is_series(run.meta.task)
                               else "Test sequence")
inp = view.read_input(run, data, i, key=f"inspect.edit.{run_id}.{i}")
if inp is None:  # the reader said why
    st.stop()

try:
    tr = cache.run_trace(run, inp.x, inp.time)
except (ValueError, OSError, TypeError, KeyError) as err:  # model file or input the trace cannot use
    st.error(f"Cannot trace this run: {err}. Retrain it, or pick another run.")
    st.stop()
if not tr.layers:
    st.error("The model lists a traced layer but none ran: nothing to trace.")
    st.stop()
if inp.original is not None:  # edited: the unedited input's trace keeps the unit order and shows the change
    inp = dataclasses.replace(inp, original_trace=cache.run_trace(run, inp.original, inp.time))

# ---------------------------------------------------------------- what the trace shows, per kind of layer

view.show_trace(run, data, tr, inp)
