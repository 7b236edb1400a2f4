"""Deleting a run folder from the dashboard: a Delete button, a confirmation, then a rerun without it.

Readable and broken runs go the same way (``RunStore.delete``). After the
rerun no selector, table or panel shows the run: pages list runs afresh, and
result panels check ``Run.exists``. A run the session may not change
(``seqlab.ownership``) has its button disabled, with the reason.
"""

from __future__ import annotations

import streamlit as st

from seqlab.runs import RunStore

CONFIRM_KEY = "seqlab.confirm_delete"


def delete_button(name: str, key: str, refused: str | None = None) -> None:
    """``Delete…``: asks for confirmation (see ``confirm_delete``) on the next run of the page; disabled, saying
    why, when ``refused``."""
    if st.button("Delete…", icon=":material/delete:", key=f"{key}.delete.{name}", disabled=refused is not None,
                 help=refused):
        st.session_state[CONFIRM_KEY] = name


def confirm_delete(store: RunStore, name: str, what: str, key: str, forget: tuple[str, ...] = ()) -> None:
    """After ``Delete…`` on ``name``: ask, then delete the folder, drop the widget states in ``forget``, rerun."""
    if st.session_state.get(CONFIRM_KEY) != name:
        return
    with st.container(border=True):
        st.warning(f"Delete {what} and its folder for good? This cannot be undone.")
        yes, no = st.columns([1, 5])
        if yes.button("Yes, delete", type="primary", key=f"{key}.delete_yes.{name}"):
            try:
                store.delete(name)
            except (OSError, ValueError) as err:
                st.error(f"Could not delete it: {err}")
            else:
                for state_key in (CONFIRM_KEY, *forget):
                    st.session_state.pop(state_key, None)
                st.toast(f"Deleted {name}.", icon=":material/delete:")
                st.rerun()
        if no.button("Keep it", key=f"{key}.delete_no.{name}"):
            st.session_state.pop(CONFIRM_KEY, None)
            st.rerun()
