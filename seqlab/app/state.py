"""Session state: one JobManager per browser session, the run store, submitting."""

from __future__ import annotations

import streamlit as st

from seqlab.runs import RunStore
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


def store() -> RunStore:
    """The run store (``$SEQLAB_RUNS_DIR`` or ``./saved_models``)."""
    return RunStore()


def find_job(job_id: int) -> Job | None:
    return next((j for j in manager().jobs if j.job_id == job_id), None)


def submit(spec: ExperimentSpec, name: str | None = None, reuse: bool = False) -> Job | None:
    """Submit ``spec`` (its run named ``name``; ``reuse``: see ``JobManager.submit``); a bad spec or name is shown
    with ``st.error`` and ``None`` returned."""
    try:
        job = manager().submit(spec, name, reuse=reuse)
    except ValueError as err:
        st.error(f"Cannot train this setting: {err}")
        return None
    return job


def last_finished() -> Job | None:
    done = [j for j in manager().jobs if j.done]
    return done[-1] if done else None
