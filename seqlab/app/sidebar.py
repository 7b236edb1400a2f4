"""The sidebar on every page: on a classroom server the student's name, then projector mode, the training device
and this session's active job."""

from __future__ import annotations

import streamlit as st

from seqlab.app import cache, projector_style, state, who
from seqlab.app.figures import projector_switch
from seqlab.app.live import job_title, progress_text

TRAIN_PAGE = "pages/train.py"


def active_job(job_id: int) -> None:
    """Fragment body: status and progress of the active job, a link to Train."""
    job = state.find_job(job_id)
    if job is None:
        return
    if job.done:
        st.rerun()  # the page and sidebar redraw once without the job
    st.markdown(f"**{job_title(job)}**")
    fraction, text = progress_text(job)
    # A queued or waiting job's text starts with its status already.
    st.progress(fraction, text=text if job.status in ("queued", "waiting") else f"{job.status} · {text}")
    queued = len(state.manager().queued()) - (job.status == "queued")
    if queued > 0:
        st.caption(f"{queued} more queued")
    st.page_link(TRAIN_PAGE, label="Watch it on Train", icon=":material/monitoring:")


def render() -> None:
    with st.sidebar:
        who.owner_box()
        projector_switch()
        st.caption("Training device")
        st.markdown(f":material/memory: **{cache.device()}**")
        st.caption("Training job")
        job = state.manager().active()
        if job is None:
            st.markdown("None running.")
        else:
            st.fragment(active_job, run_every=1.0)(job.job_id)
    if projector_style.projector_on():
        projector_style.apply()
