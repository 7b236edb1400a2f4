"""Who this browser session is: its owner (the runs it trains are theirs) and whether it is the teacher.

The owner is the name the student types once in the sidebar, kept in the link
(``?owner=ada``: the bookmark that finds their runs again), else an anonymous
id for the session. A name is a label, not a password: whoever opens a link
with it acts as its owner. The teacher is whoever types the server's teacher
key (``seqlab.limits.teacher_key``) in the Teacher menu; a server without one
has no classroom: every session is the teacher, sees every run and changes it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

import streamlit as st

from seqlab.app.widgets import KEPT
from seqlab.limits import teacher_key
from seqlab.ownership import Viewer
from seqlab.run_owner import MAX_OWNER_LENGTH, check_owner

OWNER_KEY = "owner"  # the widget's key and the link's parameter
GUEST_KEY = "seqlab.guest"
TEACHER_KEY = "seqlab.teacher"  # the SHA-256 of the key this session typed: a changed server key undoes it
KEY_BOX = "seqlab.teacher_key_box"


def server_key() -> tuple[str | None, str | None]:
    """The server's teacher key (``None``: no classroom) and the config's problem, if any. A config that cannot
    be read gives a key no one can type: nobody is the teacher until it is fixed, rather than everybody."""
    try:
        return teacher_key(), None
    except ValueError as err:
        return secrets.token_hex(32), str(err)


def classroom() -> bool:
    """Whether the server has a teacher key: runs have owners that count, the teacher's switches are its own."""
    return server_key()[0] is not None


def owner() -> str:
    """The name typed in the sidebar or given in the link, else this session's anonymous id."""
    typed = st.session_state.get(OWNER_KEY) or st.query_params.get(OWNER_KEY)
    try:
        return check_owner(typed)
    except ValueError:
        if GUEST_KEY not in st.session_state:
            st.session_state[GUEST_KEY] = f"guest-{secrets.token_hex(3)}"
        return st.session_state[GUEST_KEY]


def is_teacher() -> bool:
    key = server_key()[0]
    if key is None:
        return True
    return hmac.compare_digest(st.session_state.get(TEACHER_KEY, ""), _digest(key))


def viewer() -> Viewer:
    return Viewer(owner(), is_teacher())


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def owner_box() -> None:
    """The sidebar's name box (on a classroom server): typed once, kept in the link."""
    key, problem = server_key()
    if problem:
        st.error(f"{problem} Until it is fixed nobody is the teacher.", icon=":material/error:")
    if key is None:
        return
    st.text_input("Your name", key=OWNER_KEY, max_chars=MAX_OWNER_LENGTH, placeholder="e.g. ada", **KEPT,
                  help="Your runs are kept under this name, and the page's link keeps it: bookmark it to find them "
                       "again. It is a label, not a password.")
    typed = st.session_state.get(OWNER_KEY)
    try:
        check_owner(typed)
    except ValueError as err:
        if typed:
            st.error(str(err))
    role = "the teacher" if is_teacher() else "a student"
    st.caption(f"Your runs are **{owner()}**'s; you are {role}.")


def key_form() -> None:
    """Asks for the teacher key; the right one makes this session the teacher."""
    with st.form(KEY_BOX, border=False):
        typed = st.text_input("Teacher key", type="password", key=f"{KEY_BOX}.text",
                              help="Set on the server (teacher_key in its config file, or SEQLAB_TEACHER_KEY).")
        entered = st.form_submit_button("Enter", icon=":material/key:", key=f"{KEY_BOX}.go")
    if not entered:
        return
    key = server_key()[0]
    if key is not None and hmac.compare_digest(typed.encode(), key.encode()):
        st.session_state[TEACHER_KEY] = _digest(key)
        st.rerun()
    st.error("That is not the teacher key.")
