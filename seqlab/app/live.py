"""The live view of a training job: a fragment that re-reads the job's events every half second.

Training runs in the JobManager's worker thread, never in the script, so a
rerun, a widget touch or a page switch leaves it running. The fragment only
reads events (``events_since``) and redraws; when the job ends it asks for one
full rerun so the page shows the result. A job that waits for one of the
server's training slots (other sessions' jobs train) shows its place in line.
"""

from __future__ import annotations

import time

import streamlit as st

from seqlab.app import cache, figures, state
from seqlab.app.estimate import Estimate
from seqlab.app.format import duration, literal, steps_as_time
from seqlab.app.results import model_title
from seqlab.app.task_views import PLAN_TEXT, view_for, view_of
from seqlab.plots import grad_norm_per_batch, learning_rate_per_batch, loss_curves
from seqlab.progress import FIRST_BATCH
from seqlab.runs import Run
from seqlab.tasks import get_task
from seqlab.tasks.loss_scale import LossScale, plain_scale
from seqlab.training.jobs import SLOTS, Job
from seqlab.training.spec import ExperimentSpec

POLL_SECONDS = 0.5
PHASE_EVENTS = ("start", "batch", "epoch", "status", "progress")  # what says which phase a job is in


def job_title(job: Job) -> str:
    """``Job 3: LSTM on energy``, and the run's name in quotes when it has one."""
    named = f" “{literal(job.name)}”" if job.name else ""  # Markdown: the name shows as typed
    return f"Job {job.job_id}{named}: {model_title(job.spec.model)} on {job.spec.dataset}"


def progress_text(job: Job) -> tuple[float, str]:
    """The bar's fraction and its text for the phase the job is in: its place in line, loading and building,
    training (epoch, percent, ETA), then the evaluation's own progress and ETA, and the export; a phase without
    progress of its own says how long it has run, so none stands still."""
    if job.status in ("queued", "waiting"):
        return 0.0, waiting_text(job)
    events = job.events_since(0)
    latest = next((e for e in reversed(events) if e["type"] in PHASE_EVENTS), None)
    if latest is None:
        return 0.0, "starting…"
    if latest["type"] == "progress":
        fraction = latest["done"] / latest["total"] if latest["total"] else 1.0
        eta = f" · about {duration(latest['eta'])} left" if latest["eta"] is not None else ""
        return fraction, (f"{latest['message']}: {latest['done']:,} of {latest['total']:,} {latest['unit']} · "
                          f"{fraction:.0%}{eta}")
    progress = job.progress()
    if latest["type"] == "start":
        return 0.0, f"{FIRST_BATCH}…"
    if latest["type"] == "status":
        since = f" ({duration(time.time() - latest['at'])})" if "at" in latest else ""
        return progress["fraction"], f"{latest['message']}…{since}"
    eta = f" · about {duration(progress['eta'])} left" if progress["eta"] is not None else ""
    return progress["fraction"], (
        f"epoch {max(progress['epoch'], 1)} of {progress['epochs']} · {progress['fraction']:.0%}{eta}"
    )


def jobs_ahead(job: Job) -> int:
    """How many jobs go before ``job``: for one waiting for a training slot, the jobs that hold the slots and
    those waiting before it; for one queued in this session, the session's unfinished jobs before it, and the
    jobs ahead of the first of them that waits for a slot."""
    if job.status == "waiting":
        return SLOTS.training + (job.position or 1) - 1
    jobs = state.manager().jobs
    before = [j for j in jobs[: next((i for i, j in enumerate(jobs) if j is job), len(jobs))] if not j.done]
    waiting = next((j for j in before if j.status == "waiting"), None)
    return len(before) + (jobs_ahead(waiting) if waiting is not None else 0)


def waiting_text(job: Job) -> str:
    """``waiting for a free training slot: number 2 in line``, the number being the jobs ahead of it."""
    ahead = jobs_ahead(job)
    place = f"number {ahead} in line" if ahead else "next"
    return (f"waiting for a free training slot: {place} (every session's jobs on this server share the slots)"
            if job.status == "waiting" else f"waiting for a free slot: {place} (behind your jobs before it)")


def diverged_text(run: Run) -> str:
    """What happened to a diverged run, and what to try instead."""
    rate = run.spec.get("learning_rate")
    now = f" (now {rate:g}; try a tenth)" if isinstance(rate, (int, float)) else ""
    return (
        f"Training diverged in epoch {run.meta.epochs_run}: the loss became NaN or infinite, so it stopped "
        f"there. Saved as run `{run.run_id}`; its test metrics are meaningless. Lower the learning "
        f"rate{now}, clip gradients (e.g. clip gradient norm 1), or switch to the adam optimizer."
    )


def cost_text(weights: int, estimate: Estimate | None) -> str:
    """What the job will cost: its weights, and its training time at an earlier run's rate (or why there is none)."""
    time = (
        f"about {duration(estimate.seconds)} of training (at the rate of run `{estimate.run_id}`)"
        if estimate else "no time estimate yet: no finished run of this dataset, model and options"
    )
    return f"**{weights:,} weights** · {time}."


def describe_task(facts: dict, spec: ExperimentSpec) -> str:
    """One sentence: what the model will see and predict, and how many examples it learns from."""
    n, features = facts["windows"], ", ".join(facts["features"])
    if len(facts["features"]) > 4:
        features = f"{len(facts['features'])} features"
    batches = -(-n["train"] // spec.batch_size)
    counts = (
        f"{n['train']:,} training examples ({batches:,} batches per epoch), {n['val']:,} validation, "
        f"{n['test']:,} test."
    )
    plan = view_of(PLAN_TEXT, facts["task"], _plain_plan)
    return plan(facts, f"**{facts['target']}**", features) + " " + counts


def _plain_plan(facts: dict, target: str, features: str) -> str:
    return f"Read sequences of {facts['lookback']} steps of {features}; predict {target}."


@view_for(PLAN_TEXT, "forecast")
def _forecast_plan(facts: dict, target: str, features: str) -> str:
    lookback, horizon = facts["lookback"], facts["horizon"]
    look_time, hor_time = steps_as_time(facts["index"], lookback), steps_as_time(facts["index"], horizon)
    return (
        f"Forecast {target} {horizon} steps" + (f" ({hor_time})" if hor_time else "")
        + f" ahead from the last {lookback}" + (f" ({look_time})" if look_time else "")
        + f" of {features}."
    )


@view_for(PLAN_TEXT, "regress")
def _regression_plan(facts: dict, target: str, features: str) -> str:
    values = f"{facts['horizon']} value{'s' if facts['horizon'] != 1 else ''}"
    return _plain_plan(facts, f"its {target} ({values})", features)


@view_for(PLAN_TEXT, "classify")
def _class_plan(facts: dict, target: str, features: str) -> str:
    return _plain_plan(facts, f"its {target}, one of {facts['classes']} classes", features)


@view_for(PLAN_TEXT, "label")
def _labels_plan(facts: dict, target: str, features: str) -> str:
    return _plain_plan(facts, f"the {target} class at every step ({facts['classes']} classes)", features)


def loss_figure(job: Job, scale: LossScale):
    events = job.events_since(0)
    start = next((e for e in events if e["type"] == "start"), {})
    return loss_curves(
        [e for e in events if e["type"] == "batch"],
        [e for e in events if e["type"] == "epoch"],
        steps_per_epoch=start.get("steps_per_epoch"),
        scale=scale,
        total_epochs=job.spec.epochs,
        title="Loss while training (thin: each batch; markers: epoch means)",
    )


def loss_scale_of(job: Job) -> LossScale:
    """How the job's task reads its loss (``Task.loss_scale``): MSE in the target's unit, bits per character..."""
    try:
        facts = cache.dataset_facts(job.spec.dataset, job.spec.data_options)
    except (ValueError, RuntimeError):
        return plain_scale("mse")
    return get_task(facts["task"]).loss_scale(facts["unit"], facts["data_options"])


def job_panel(job_id: int) -> None:
    """Status, progress with ETA, live loss curves and Cancel, for one job (fragment body)."""
    job = state.find_job(job_id)
    if job is None:
        return
    if job.done:
        st.rerun()  # one full rerun: the page now shows the result instead of this panel
    st.subheader(job_title(job))
    fraction, text = progress_text(job)
    st.progress(fraction, text=text)
    events = job.events_since(0)
    batches = [e for e in events if e["type"] == "batch"]
    epochs = [e for e in events if e["type"] == "epoch"]
    start = next((e for e in events if e["type"] == "start"), {})
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Epoch", f"{batches[-1]['epoch'] if batches else 0} / {job.spec.epochs}")
    scale = loss_scale_of(job)
    c2.metric("Train loss", scale.shown(batches[-1]["loss"]) if batches else "–",
              help=f"The running mean over this epoch's batches so far, as {scale.title}.")
    c3.metric("Validation loss", scale.shown(epochs[-1]["val_loss"]) if epochs and "val_loss" in epochs[-1] else "–",
              help=f"After the last epoch, as {scale.title}.")
    c4.metric("Elapsed", duration(batches[-1]["elapsed"]) if batches else "–",
              help=f"Training on {start.get('device', cache.device())}.")
    if job.status in ("queued", "waiting"):  # its place in line where its chart will be, not an empty axis
        st.info(waiting_text(job), icon=":material/hourglass_top:")
    else:  # live: redrawn every half second, so no download menu (the finished run's history has one)
        figures.show(loss_figure(job, scale), key=f"live.loss.{job_id}", downloads=False)
    if any(b.get("grad_norm") is not None for b in batches):  # exploding or vanishing, batch by batch
        grads = grad_norm_per_batch(batches, clip_norm=job.spec.clip_norm, title="Gradient norm while training")
        figures.show(grads.update_layout(height=260), key=f"live.grad.{job_id}", downloads=False)
    if any(b.get("learning_rate") is not None for b in batches):  # the schedule: warm-up, then decay
        rates = learning_rate_per_batch(batches, title="Learning rate while training")
        figures.show(rates.update_layout(height=260), key=f"live.rate.{job_id}", downloads=False)
    cancelling = job.cancel_flag.is_set()
    waiting = job.status == "waiting"
    if st.button(
        "Cancelling…" if cancelling else "Cancel waiting" if waiting else "Cancel training",
        key=f"live.cancel.{job_id}",
        icon=":material/stop_circle:",
        disabled=cancelling,
        help="Leaves the queue; nothing is trained or saved." if waiting
        else "Stops after the current batch; the run is still saved and evaluated, marked cancelled.",
    ):
        job.cancel()  # the next poll (0.5 s) shows "Cancelling…"
    queued = [j for j in state.manager().queued() if j.job_id != job_id]
    if queued:
        st.markdown(f"**Queued ({len(queued)})**")
        for other in queued:
            left, right = st.columns([4, 1], vertical_alignment="center")
            left.write(job_title(other) + (" (cancelled)" if other.cancel_flag.is_set() else ""))
            if right.button("Remove", key=f"live.remove.{other.job_id}", disabled=other.cancel_flag.is_set()):
                other.cancel()


def show_active_job() -> bool:
    """Draw the live panel of the running (or next queued) job; ``False`` when there is none."""
    job = state.manager().active()
    if job is None:
        return False
    with st.container(border=True):
        st.fragment(job_panel, run_every=POLL_SECONDS)(job.job_id)
    return True
