"""A lesson in the dashboard: a preset's runs queued together and compared as they train.

The runs go through this session's JobManager like any other job (one at a
time, Cancel works, page switches do not stop them); this module only reads
their events and finished runs.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from seqlab.app import figures, results, state
from seqlab.app.live import POLL_SECONDS, diverged_text, loss_scale_of, progress_text
from seqlab.app.results import model_title
from seqlab.models import get_architecture
from seqlab.plots import validation_curves
from seqlab.training.jobs import Job
from seqlab.training.presets import Preset
from seqlab.training.spec import ExperimentSpec

JOBS_KEY = "seqlab.lesson.{name}"


def training_text(spec: ExperimentSpec) -> str:
    """How a run trains, as it will: one closed-form fit (whatever ``epochs`` says), or its budget."""
    if get_architecture(spec.model).fit is not None:
        return "one closed-form fit"
    budget = f"{spec.steps:,} steps, {spec.epochs} validations" if spec.steps else f"{spec.epochs} epochs"
    return budget + (f", early stop after {spec.early_stopping}" if spec.early_stopping else "")


def plan_table(preset: Preset) -> pd.DataFrame:
    """What the lesson trains: one row per run, with the settings that differ from the defaults."""
    rows = []
    for spec in preset.specs:
        options = {**spec.data_options, **spec.model_options}
        rows.append({
            "model": model_title(spec.model),
            "dataset": spec.dataset,
            "training": training_text(spec),
            "settings": ", ".join(f"{k}={v}" for k, v in options.items()),
        })
    return pd.DataFrame(rows)


def show_plan(preset: Preset) -> None:
    st.dataframe(plan_table(preset), hide_index=True, width="stretch",
                 column_config={"settings": st.column_config.TextColumn(width="large")})  # long option lists


def start(preset: Preset) -> None:
    jobs = [state.submit(spec) for spec in preset.specs]
    st.session_state[JOBS_KEY.format(name=preset.name)] = [j.job_id for j in jobs if j is not None]


def jobs_of(preset: Preset) -> list[Job]:
    ids = st.session_state.get(JOBS_KEY.format(name=preset.name), [])
    return [job for job in map(state.find_job, ids) if job is not None]


def job_label(job: Job, jobs: list[Job]) -> str:
    """The model's title; beside a run of the same model, also the options in which they differ."""
    twins = [{**j.spec.data_options, **j.spec.model_options} for j in jobs if j.spec.model == job.spec.model]
    extra = results.differing_options({**job.spec.data_options, **job.spec.model_options}, twins)
    return f"{model_title(job.spec.model)}{f' · {extra}' if extra else ''} (job {job.job_id})"


def curves_figure(jobs: list[Job]):
    """The validation losses per epoch. No baseline line: the baselines are scored on the test
    split only, and a test level drawn over validation curves would compare unlike things."""
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
    figures.show(curves_figure(jobs), key=f"lesson.curves.{preset_name}", downloads=False)  # redrawn live


def show_progress(preset: Preset, jobs: list[Job]) -> None:
    st.fragment(progress_panel, run_every=POLL_SECONDS)(preset.name, [job.job_id for job in jobs])


def show_results(jobs: list[Job]) -> None:
    """The overlaid curves, then each finished run against its best baseline (as on Models)."""
    figures.show(curves_figure(jobs), key="lesson.curves.final")
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
        column_config=results.RUN_COLUMNS,
    )
    if table["metric"].nunique() == 1:
        metric = table["metric"].iloc[0]
        figures.show(results.comparison_figure(table, title=f"Test {metric} per run"), key="lesson.compare")
