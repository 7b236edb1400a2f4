"""Models: every saved run; one run's spec, metrics and history; download, delete; serve its SavedModel on test
items or your own data; upload a model and predict with it."""

import functools

import pandas as pd
import streamlit as st

from seqlab.app import deletion, projector_style, renaming, results, run_table, sharing, state, who
from seqlab.app.entry import require_entry
from seqlab.app.format import literal
from seqlab.app.uploads.model_upload import own_data_view, upload_view
from seqlab.app.widgets import train_link
from seqlab.export import zip_bytes
from seqlab.training import ExperimentSpec

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script


def upload_expander() -> None:
    """At the page's end, with or without runs: a model from elsewhere, checked, predicted with, a run zip added."""
    with st.expander("Upload a model", icon=":material/upload_file:"):
        upload_view(key="models.upload", store=state.store())


st.title("Models")
store = state.store()
st.caption(f"Every trained run in `{store.root}`: one folder each, with its spec, metrics, Keras model and SavedModel."
           + (" On this classroom server: your runs, the class's and those others share." if who.classroom() else ""))
runs, broken = store.scan()
for name, reason in sorted(broken.items()):
    with st.container(border=True):
        st.warning(f"The folder `{name}` is not a readable run: {reason}", icon=":material/folder_off:")
        deletion.delete_button(name, key="models", refused=store.refusal(name))
        deletion.confirm_delete(store, name, f"the broken run `{name}`", key="models")

if not runs:
    with st.container(border=True):
        st.markdown("#### No trained runs yet")
        st.markdown(
            "Train one on the **Train** page: pick a dataset, an architecture and a "
            "few epochs, press **Train**. When it finishes it appears here with its metrics, loss "
            "history and an exported SavedModel you can load, predict with and download."
        )
        st.page_link("pages/train.py", label="Train a model", icon=":material/model_training:")
    upload_expander()
    st.stop()

table = run_table.runs_table(runs)
projector_style.show_table(
    table,
    ["run", "name", *(["owner"] if who.classroom() else []), "origin", "dataset", "model", "status", "epochs",
     "metric", "test", "best baseline", "skill", "MAE", "RMSE", "MAPE %", "params", "device", "created"],
    run_table.RUN_COLUMNS,
)
if len(runs) > 1:
    st.page_link("pages/compare.py", label="Compare these runs: curves, table, leaderboard", icon=":material/compare_arrows:")

ids = [r.run_id for r in runs]
by_id = {r.run_id: r for r in runs}
run_id = st.selectbox(
    "Run", ids, key="models.run",
    format_func=lambda i: f"{results.run_label(by_id[i])}  ·  {by_id[i].status}",
)
run = by_id[run_id]
target, unit = results.target_unit(run)

named = f"“{literal(run.name)}”: " if run.name else ""  # Markdown: the name shows as typed
st.subheader(f"{named}{results.model_title(run.meta.model)} on {run.meta.dataset}")
st.caption(
    f"Created {run.meta.created} on {run.meta.device} · "
    f"{run.meta.parameters:,} weights · {run_table.io_summary(run)}"
)
if run.imported:
    st.badge(f"{results.IMPORTED}, untrusted", icon=":material/move_to_inbox:", color="orange")
    st.caption(f"Added from the zip `{literal(str(run.imported.get('source')))}` on {run.imported.get('at')}, not "
               "trained here: its metrics and curves are its own data; its SavedModel is code, so it loads only "
               "after you say you trust it.")
actions = st.columns([1, 1, 1, 3])
with actions[0]:
    st.download_button(
        "Download zip", data=functools.partial(zip_bytes, run), file_name=f"{run.run_id}.zip",
        mime="application/zip", icon=":material/download:", on_click="ignore", key=f"models.zip.{run_id}",
        help="SavedModel folder, model.keras, spec, meta, metrics and USAGE.md (how to load and call them).",
    )
with actions[1]:
    try:
        again = train_link(ExperimentSpec.from_dict(run.spec))
    except (StopIteration, KeyError, ValueError, TypeError):  # a dataset or architecture this server lacks
        again = None
    if st.button("Train again with changes", icon=":material/replay:", key=f"models.again.{run_id}",
                 disabled=again is None, help="Open Train with this run's settings, ready to change and train."):
        st.switch_page("pages/train.py", query_params=again)
with actions[2]:
    deletion.delete_button(run_id, key="models", refused=store.refusal(run_id))
deletion.confirm_delete(store, run_id, f"run `{run_id}`", key="models", forget=("models.run",))
renaming.rename_form(store, run, key="models")
sharing.share_switch(store, run, key="models")

overview, history, serve, spec = st.tabs(["Metrics and forecasts", "Loss history", "Load SavedModel and predict", "Spec and metadata"])

with overview:
    results.run_overview(run, key=f"models.{run_id}")

with history:
    results.history_view(run, key=f"models.{run_id}")
    if run.history.get("epoch"):
        epochs_table = pd.DataFrame(run.history["epoch"]).drop(columns=["type"], errors="ignore").set_index("epoch")
        st.dataframe(epochs_table, width="stretch")
        st.caption("Per epoch: the losses and metrics Keras logged; elapsed in seconds since training began.")

with serve:
    st.markdown(
        "Load the run's exported **TensorFlow SavedModel** (what you would deploy: it needs no seqlab "
        "code) and predict a test window with it. Matching the prediction stored at training time "
        "proves the export serves. Below, predict from your own file or text."
    )
    results.serve_view(run, key=f"models.serve.{run_id}")
    # One "I trust this model" covers the test window above and your own data.
    own_data_view(run, key=f"models.own.{run_id}", trust_key=f"models.serve.{run_id}.trusted")

with spec:
    left, right = st.columns(2)
    with left:
        st.markdown("**Experiment spec** (`spec.json`)")
        st.json(run.spec)
    with right:
        st.markdown("**Metadata** (`meta.json`)")
        st.json(run.meta.to_dict(), expanded=1)

upload_expander()
