"""Session state: one JobManager per browser session, the run store as this session sees it, submitting."""

from __future__ import annotations

import streamlit as st

from seqlab.app import who
from seqlab.ownership import SessionStore
from seqlab.training.jobs import Job, JobManager
from seqlab.training.spec import ExperimentSpec

MANAGER_KEY = "seqlab.jobs"


def manager() -> JobManager:
    """This session's job manager (one running job, more queued); survives reruns and page switches.

    Each browser session has its own manager, jobs and results; only the
    training slots (``seqlab.training.jobs.SLOTS``) are shared by all sessions.
    """
    if MANAGER_KEY not in st.session_state:
        st.session_state[MANAGER_KEY] = JobManager()
    return st.session_state[MANAGER_KEY]


def store() -> SessionStore:
    """The run store (``$SEQLAB_RUNS_DIR`` or ``./saved_models``) as this session may use it
    (``seqlab.ownership``): the runs it may see, changed only where it may."""
    return SessionStore(who.viewer())


def find_job(job_id: int) -> Job | None:
    return next((j for j in manager().jobs if j.job_id == job_id), None)


def submit(spec: ExperimentSpec, name: str | None = None, reuse: bool = False, lesson: bool = False) -> Job | None:
    """Submit ``spec`` (its run named ``name``; ``reuse``: see ``JobManager.submit``); a bad spec or name is shown
    with ``st.error`` and ``None`` returned. The run is this session's owner's (``seqlab.app.who``), except a
    ``lesson``'s: that is the class's, seen by every session and changed by the teacher only."""
    try:
        job = manager().submit(spec, name, reuse=reuse, owner=None if lesson else who.owner())
    except ValueError as err:
        st.error(f"Cannot train this setting: {err}")
        return None
    return job


def last_finished() -> Job | None:
    done = [j for j in manager().jobs if j.done]
    return done[-1] if done else None
