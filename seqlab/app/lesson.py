"""A lesson in the dashboard: a preset's runs queued together and compared as they train.

The runs go through this session's JobManager like any other job (one at a
time, Cancel works, page switches do not stop them); this module only reads
their events and finished runs.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from seqlab.app import state
from seqlab.app.format import best_baseline, duration, metric_label, primary_metric, skill
from seqlab.app.live import POLL_SECONDS, unit_and_loss, progress_text
from seqlab.app.results import model_title
from seqlab.plots import runs_comparison, validation_curves
from seqlab.plots.training import loss_axis_title
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


def _baseline_loss(jobs: list[Job]) -> tuple[str, float] | None:
    """The best baseline's test loss of the first finished run, when its metrics carry the loss."""
    for job in jobs:
        if job.run is None:
            continue
        name, metrics = best_baseline(job.run.metrics)
        if name is None:
            continue
        for key, to_loss in (("mse", lambda v: v), ("rmse", lambda v: v * v), ("cross_entropy", lambda v: v)):
            if key in metrics:
                return f"baseline: {name.replace('_', ' ')} (test)", to_loss(metrics[key])
    return None


def curves_figure(jobs: list[Job]):
    curves = {}
    for job in jobs:
        epochs = [e for e in job.events_since(0) if e["type"] == "epoch" and "val_loss" in e]
        curves[f"{model_title(job.spec.model)} (job {job.job_id})"] = (
            [e["epoch"] for e in epochs], [e["val_loss"] for e in epochs]
        )
    unit, loss = unit_and_loss(jobs[0])
    return validation_curves(
        curves,
        y_title=loss_axis_title(loss, unit),
        baseline=_baseline_loss(jobs),
        total_epochs=max(job.spec.epochs for job in jobs),
    )


def progress_panel(preset_name: str, job_ids: list[int]) -> None:
    """Fragment body: one progress bar per run and the overlaid validation curves."""
    jobs = [job for job in map(state.find_job, job_ids) if job is not None]
    if all(job.done for job in jobs):
        st.rerun()  # one full rerun: the page now shows the comparison
    for job in jobs:
        fraction, text = (1.0, job.status) if job.done else progress_text(job)
        st.progress(fraction, text=f"**{model_title(job.spec.model)}**: {text}")
    st.plotly_chart(curves_figure(jobs), key=f"lesson.curves.{preset_name}")


def show_progress(preset: Preset, jobs: list[Job]) -> None:
    st.fragment(progress_panel, run_every=POLL_SECONDS)(preset.name, [job.job_id for job in jobs])


def results_table(jobs: list[Job]) -> pd.DataFrame:
    rows = []
    for job in jobs:
        row = {"model": model_title(job.spec.model), "status": job.status}
        if job.run is not None:
            metrics = job.run.metrics
            key = primary_metric(metrics)
            name, base = best_baseline(metrics)
            unit = job.run.meta.get("units", {}).get(job.run.meta.get("target"), "")
            row.update({
                "metric": metric_label(key, unit),
                "model value": metrics["model"][key],
                "best baseline": base.get(key),
                "baseline": (name or "").replace("_", " "),
                "skill %": skill(metrics),
                "training time": duration(job.run.meta["train_seconds"]),
                "run": job.run.run_id,
            })
        else:
            row["error"] = job.error or ""
        rows.append(row)
    return pd.DataFrame(rows)


def show_results(jobs: list[Job]) -> None:
    st.plotly_chart(curves_figure(jobs), key="lesson.curves.final")
    table = results_table(jobs)
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={"skill %": st.column_config.NumberColumn(format="%+.1f"),
                                "model value": st.column_config.NumberColumn(format="%.4g"),
                                "best baseline": st.column_config.NumberColumn(format="%.4g")})
    finished = table.dropna(subset=["model value"]) if "model value" in table else table.iloc[0:0]
    if len(finished) and finished["metric"].nunique() == 1:
        st.plotly_chart(
            runs_comparison(list(finished["model"]), list(finished["model value"]),
                            list(finished["best baseline"]), metric=finished["metric"].iloc[0]),
            key="lesson.compare",
        )
