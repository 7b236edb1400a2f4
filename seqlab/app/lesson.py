"""A lesson in the dashboard: a preset's runs queued together and compared as they train.

The runs go through this session's JobManager like any other job (one at a
time, Cancel works, page switches do not stop them); this module only reads
their events and finished runs.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from seqlab.app import results, state
from seqlab.app.format import baseline_label, best_baseline
from seqlab.app.live import POLL_SECONDS, diverged_text, loss_scale_of, progress_text
from seqlab.app.results import model_title
from seqlab.plots import validation_curves
from seqlab.tasks.loss_scale import LossScale
from seqlab.training.jobs import Job
from seqlab.training.presets import Preset

JOBS_KEY = "seqlab.lesson.{name}"


def plan_table(preset: Preset) -> pd.DataFrame:
    """What the lesson trains: one row per run, with the settings that differ from the defaults."""
    rows = []
    for spec in preset.specs:
        options = {**spec.data_options, **spec.model_options}
        rows.append({
            "model": model_title(spec.model),
            "dataset": spec.dataset,
            "epochs": spec.epochs,
            "settings": ", ".join(f"{k}={v}" for k, v in options.items()),
        })
    return pd.DataFrame(rows)


def start(preset: Preset) -> None:
    jobs = [state.submit(spec) for spec in preset.specs]
    st.session_state[JOBS_KEY.format(name=preset.name)] = [j.job_id for j in jobs if j is not None]


def jobs_of(preset: Preset) -> list[Job]:
    ids = st.session_state.get(JOBS_KEY.format(name=preset.name), [])
    return [job for job in map(state.find_job, ids) if job is not None]


def _baseline_loss(jobs: list[Job], scale: LossScale) -> tuple[str, float] | None:
    """The best baseline's test loss of the first finished run, when its metrics carry the loss, in ``scale``."""
    for job in jobs:
        if job.run is None:
            continue
        name, metrics = best_baseline(job.run.metrics, task=results.task_of(job.run))
        if name is None:
            continue
        for key, to_loss in (("mse", lambda v: v), ("rmse", lambda v: v * v), ("cross_entropy", lambda v: v)):
            if key in metrics:
                return f"baseline: {baseline_label(name)} (test)", scale.of(to_loss(metrics[key]))
    return None


def job_label(job: Job, jobs: list[Job]) -> str:
    """The model's title; beside a run of the same model, also the options in which they differ."""
    twins = [{**j.spec.data_options, **j.spec.model_options} for j in jobs if j.spec.model == job.spec.model]
    extra = results.differing_options({**job.spec.data_options, **job.spec.model_options}, twins)
    return f"{model_title(job.spec.model)}{f' · {extra}' if extra else ''} (job {job.job_id})"


def curves_figure(jobs: list[Job]):
    curves = {}
    for job in jobs:
        epochs = [e for e in job.events_since(0) if e["type"] == "epoch" and "val_loss" in e]
        curves[job_label(job, jobs)] = (
            [e["epoch"] for e in epochs], [e["val_loss"] for e in epochs]
        )
    scale = loss_scale_of(jobs[0])
    return validation_curves(
        {label: (epochs, scale.values(losses)) for label, (epochs, losses) in curves.items()},
        y_title=scale.title,
        log_y=scale.log_y,
        baseline=_baseline_loss(jobs, scale),
        total_epochs=max(job.spec.epochs for job in jobs),
    )


def progress_panel(preset_name: str, job_ids: list[int]) -> None:
    """Fragment body: one progress bar per run and the overlaid validation curves."""
    jobs = [job for job in map(state.find_job, job_ids) if job is not None]
    if all(job.done for job in jobs):
        st.rerun()  # one full rerun: the page now shows the comparison
    for job in jobs:
        fraction, text = (1.0, job.status) if job.done else progress_text(job)
        st.progress(fraction, text=f"**{job_label(job, jobs)}**: {text}")
    st.plotly_chart(curves_figure(jobs), key=f"lesson.curves.{preset_name}")


def show_progress(preset: Preset, jobs: list[Job]) -> None:
    st.fragment(progress_panel, run_every=POLL_SECONDS)(preset.name, [job.job_id for job in jobs])


def show_results(jobs: list[Job]) -> None:
    """The overlaid curves, then each finished run against its best baseline (as on Models)."""
    st.plotly_chart(curves_figure(jobs), key="lesson.curves.final")
    for job in jobs:
        if job.run is None:
            st.error(f"{model_title(job.spec.model)}: {job.error or 'cancelled before it started'}")
        elif not job.run.exists():
            st.info(f"{model_title(job.spec.model)}: run `{job.run.run_id}` was deleted.")
        elif job.run.status == "diverged":
            st.warning(f"{model_title(job.spec.model)}: {diverged_text(job.run)}", icon=":material/warning:")
    table = results.runs_table([job.run for job in jobs if job.run is not None and job.run.exists()])
    if not len(table):
        return
    st.dataframe(
        table, hide_index=True, width="stretch",
        column_order=["model", "status", "epochs", "metric", "test", "best baseline", "skill", "train s", "run"],
        column_config={
            "test": st.column_config.NumberColumn("value", format="%.4g"),
            "best baseline": st.column_config.NumberColumn(format="%.4g"),
            "skill": st.column_config.NumberColumn("skill %", format="%+.1f"),
            "train s": st.column_config.NumberColumn("training time (s)", format="%.1f"),
        },
    )
    if table["metric"].nunique() == 1:
        metric = table["metric"].iloc[0]
        st.plotly_chart(results.comparison_figure(table, title=f"Test {metric} per run"), key="lesson.compare")
