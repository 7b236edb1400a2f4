"""Sharing a run with the class from the dashboard: on a classroom server, whose a run is and a switch that shows it
to every session (``SessionStore.share``: its owner's or the teacher's to turn)."""

from __future__ import annotations

import streamlit as st

from seqlab.app import who
from seqlab.app.run_change import apply_change
from seqlab.ownership import SessionStore
from seqlab.runs import Run

CLASS_RUN = ("The class's run (trained from the command line or by a lesson): every session sees it, only the teacher "
             "changes it.")


def share_switch(store: SessionStore, run: Run, key: str) -> None:
    """Whose ``run`` is and its **Shared with the class** switch; nothing on a server without a teacher key, where
    every session sees every run."""
    if not who.classroom():
        return
    owner = run.ownership.owner
    if owner is None:
        st.caption(CLASS_RUN)
        return
    refused = store.refusal(run.run_id)
    shared = st.toggle(
        "Shared with the class", value=run.ownership.shared, key=f"{key}.share.{run.run_id}",
        disabled=refused is not None,
        help=refused or f"{owner}'s run. Shared, every session sees it; only {owner} and the teacher change it.",
    )
    if shared != run.ownership.shared:
        apply_change(lambda: store.share(run.run_id, shared), f"Could not share run `{run.run_id}`",
                     f"{'Shared' if shared else 'Unshared'} {run.run_id}.", ":material/group:")
