"""Make every page run through the entry script, even on a cold deep link.

With a ``pages/`` folder beside the entry script, Streamlit starts in its legacy
multipage mode: until some session has run ``streamlit_app.py`` (which calls
``st.navigation``), a first visit to ``/train`` runs ``pages/train.py`` alone,
without the page config, the sidebar or the navigation. A page calls
``require_entry`` first; in that case it hands over to the entry script, which
then opens the page the visitor asked for, with the link's query parameters
(the page's settings: ``seqlab.app.widgets`` binds them).

Why not a setting instead: Streamlit (1.67) picks the legacy mode once per
process from the folder alone (``pages/`` beside the entry script); no config
option turns it off, and only a call of ``st.navigation`` does. Its documented
way out is to name the folder something else, and the project keeps ``pages/``.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

ENTRY = "streamlit_app.py"
RAN_KEY = "seqlab.entry_ran"
GOTO_KEY = "seqlab.goto"


def mark_entry() -> None:
    """Called by the entry script on every run."""
    st.session_state[RAN_KEY] = True


def require_entry(page_file: str) -> None:
    """Stop a page run that did not start from the entry script and switch to it."""
    if st.session_state.get(RAN_KEY):
        return
    st.session_state[GOTO_KEY] = (f"pages/{Path(page_file).name}", st.query_params.to_dict())
    st.switch_page(ENTRY)


def follow_goto() -> None:
    """In the entry script, after ``st.navigation``: open the page a deep link asked for."""
    goto = st.session_state.pop(GOTO_KEY, None)
    if goto:
        page, query = goto
        st.switch_page(page, query_params=query)
