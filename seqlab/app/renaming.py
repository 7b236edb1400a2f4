"""Renaming a stored run from the dashboard: its name in a text box, Rename, then a rerun that shows it.

The name is the run's ``name.json`` (``seqlab.run_name``), replaced
atomically by ``RunStore.rename``; an empty box removes the name. A run the
session may not change (``seqlab.ownership``) shows its name in a disabled box,
with the reason.
"""

from __future__ import annotations

import streamlit as st

from seqlab.run_name import MAX_LENGTH
from seqlab.app.run_change import apply_change
from seqlab.ownership import SessionStore
from seqlab.runs import Run


def rename_form(store: SessionStore, run: Run, key: str) -> None:
    """A form with the run's name (empty: none) and Rename; a bad name is an ``st.error``, the run unchanged."""
    refused = store.refusal(run.run_id)
    with st.form(f"{key}.rename.{run.run_id}", border=False, enter_to_submit=True):
        box, button = st.columns([4, 1], vertical_alignment="bottom")
        name = box.text_input(
            "Name", value=run.name or "", max_chars=MAX_LENGTH, placeholder="e.g. lstm 64 units, lr 1e-3",
            key=f"{key}.name.{run.run_id}", help=refused or "Your label for the run; leave it empty for none.",
            disabled=refused is not None,
        )
        renamed = button.form_submit_button("Rename", icon=":material/edit:", key=f"{key}.rename_go.{run.run_id}",
                                            disabled=refused is not None, help=refused)
    if refused:
        st.caption(refused)
    if not renamed or (name.strip() or None) == run.name:
        return
    apply_change(lambda: store.rename(run.run_id, name), f"Could not rename run `{run.run_id}`",
                 f"Renamed {run.run_id}.", ":material/edit:")
