"""A change to a stored run from the dashboard (a new name, shared or not): done, said in a toast and the page rerun
to show it; refused by the store, said in an error and the page left as it was."""

from __future__ import annotations

from typing import Callable

import streamlit as st


def apply_change(change: Callable[[], None], failed: str, done: str, icon: str) -> None:
    """Call ``change()``; its ``ValueError`` or ``OSError`` is ``st.error(f"{failed}: {err}")``, else ``done`` is
    toasted with ``icon`` and the page reruns."""
    try:
        change()
    except (OSError, ValueError) as err:
        st.error(f"{failed}: {err}")
        return
    st.toast(done, icon=icon)
    st.rerun()
