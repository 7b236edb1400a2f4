"""Renaming a stored run from the dashboard: its name in a text box, Rename, then a rerun that shows it.

The name is the run's ``name.json`` (``seqlab.run_name``), replaced
atomically by ``RunStore.rename``; an empty box removes the name.
"""

from __future__ import annotations

import streamlit as st

from seqlab.run_name import MAX_LENGTH
from seqlab.runs import Run, RunStore


def rename_form(store: RunStore, run: Run, key: str) -> None:
    """A form with the run's name (empty: none) and Rename; a bad name is an ``st.error``, the run unchanged."""
    with st.form(f"{key}.rename.{run.run_id}", border=False, enter_to_submit=True):
        box, button = st.columns([4, 1], vertical_alignment="bottom")
        name = box.text_input(
            "Name", value=run.name or "", max_chars=MAX_LENGTH, placeholder="e.g. lstm 64 units, lr 1e-3",
            key=f"{key}.name.{run.run_id}", help="Your label for the run; leave it empty for none.",
        )
        renamed = button.form_submit_button("Rename", icon=":material/edit:", key=f"{key}.rename_go.{run.run_id}")
    if not renamed or (name.strip() or None) == run.name:
        return
    try:
        store.rename(run.run_id, name)
    except (OSError, ValueError) as err:
        st.error(f"Could not rename run `{run.run_id}`: {err}")
        return
    st.toast(f"Renamed {run.run_id}.", icon=":material/edit:")
    st.rerun()
