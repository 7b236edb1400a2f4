"""The runs table: one row per run, what it is and how well it does against its best baseline, as Models,
Lessons and Compare show it; bars of a metric shared by its rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app.format import best_baseline, metric_label, metric_value, primary_metric, skill
from seqlab.app.results import IMPORTED, model_title, run_options, target_unit, task_of
from seqlab.app.task_views import OUTPUT_TEXT, view_of
from seqlab.plots import runs_comparison
from seqlab.runs import Run
from seqlab.tasks import get_metric
from seqlab.training.presets import differing_options

SKILL_HELP = ("How much better than the best baseline; positive: the model beats every baseline. Errors: "
              "1 − model / best baseline, in %. Accuracy: percentage points over the best baseline.")


# How the columns of ``runs_table`` are shown wherever it is drawn (Models, Lessons, Compare).
RUN_COLUMNS = {
    "run": st.column_config.TextColumn("run", width="medium", help="The run's folder name (its id)."),
    "name": st.column_config.TextColumn(
        "name", width="large",
        help="Your name for the run, or its preset's: the preset and what sets the run apart (rename it on Models)."),
    "owner": st.column_config.TextColumn(
        help="On a classroom server, whose run it is; empty: the class's (trained from the command line or by a "
             "lesson)."),
    "label": st.column_config.TextColumn(
        "model", width="medium",
        help="The model, and the options in which the run differs from the other runs of that model here."),
    "origin": st.column_config.TextColumn(
        help=f"trained here, or {IMPORTED}: added from someone's run zip; its SavedModel loads only if you trust it."),
    "metric": st.column_config.TextColumn(help="The task's main test metric, with its unit."),
    "test": st.column_config.NumberColumn("value", format="%.4g", help="The run's test value of that metric."),
    "best baseline": st.column_config.NumberColumn(format="%.4g", help="The best baseline's value of that metric."),
    "skill": st.column_config.NumberColumn("skill", format="%+.1f", help=SKILL_HELP),
    "MAE": st.column_config.NumberColumn(format="%.4g", help="Forecast and regression runs: test MAE."),
    "RMSE": st.column_config.NumberColumn(format="%.4g"),
    "MAPE %": st.column_config.NumberColumn(format="%.3g"),
    "params": st.column_config.NumberColumn(format="%d"),
    "train s": st.column_config.NumberColumn("training time (s)", format="%.1f"),
    "created": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm"),
}


def model_label(model: str, options: dict, others: list[dict]) -> str:
    """The model's title; beside runs of the same model (their ``options``), also the options it differs in."""
    extra = differing_options(options, others)
    return f"{model_title(model)}{f' · {extra}' if extra else ''}"


def run_title(run: Run, runs: list[Run]) -> str:
    """The run's model, and the options in which it differs from the other runs of that model in ``runs``."""
    twins = [run_options(r) for r in runs if r is not run and r.meta.model == run.meta.model]
    return model_label(run.meta.model, run_options(run), twins)


def runs_table(runs: list[Run]) -> pd.DataFrame:
    """One row per run: what, how well against its best baseline, how big, where, when."""
    rows = []
    for run in runs:
        model = run.metrics.get("model", {})
        task = task_of(run)
        key = primary_metric(run.metrics, task)
        _, base = best_baseline(run.metrics, task=task)
        _, unit = target_unit(run)
        rows.append(
            {
                "run": run.run_id,
                "name": run.name or "",
                "owner": run.ownership.owner or "",
                "origin": IMPORTED if run.imported else "trained here",
                "dataset": run.meta.dataset,
                "task": task_of(run),
                "model": model_title(run.meta.model),
                "label": run_title(run, runs),
                "status": run.status,
                "epochs": run.meta.epochs_run,
                "key": key or "",
                "metric": metric_label(key, unit) if key else "",
                "test": metric_value(key, model.get(key)) if key else np.nan,
                "best baseline": metric_value(key, base.get(key)) if key and base else np.nan,
                "skill": skill(run.metrics, task=task),
                "MAE": model.get("mae", np.nan),
                "RMSE": model.get("rmse", np.nan),
                "MAPE %": model.get("mape", np.nan),
                "sMAPE %": model.get("smape", np.nan),
                "MASE": model.get("mase", np.nan),
                "params": run.meta.parameters,
                "train s": run.meta.train_seconds,
                "device": run.meta.device,
                "created": pd.to_datetime(run.meta.created, errors="coerce"),
            }
        )
    table = pd.DataFrame(rows)
    # Forecast-only columns (MAE, RMSE, MAPE, sMAPE, MASE) stay out when no run has them.
    return table.dropna(axis=1, how="all") if len(table) else table


def comparison_figure(table: pd.DataFrame, title: str):
    """Bars of each run's test value beside its best baseline's; the rows of ``runs_table``
    must share one metric. Each bar is named by what sets its run apart (its model, the options
    it differs in from the others of that model; its id where nothing else does). Errors on a
    log axis: one run far off (a diverged one, an untrained baseline) would flatten the winners' bars."""
    metric = get_metric(table["key"].iloc[0])
    _, _, unit = table["metric"].iloc[0].partition(" (")
    twins = table["label"].duplicated(keep=False)
    labels = [f"{label} · {run}" if twin else label for label, run, twin in zip(table["label"], table["run"], twins)]
    return runs_comparison(labels, table["test"].tolist(), table["best baseline"].tolist(), metric=metric.name,
                           unit=unit.rstrip(")"), title=title, log_y=not metric.higher_is_better)


def io_summary(run: Run) -> str:
    """``96 steps × 3 features (Demand, ...) → 48 steps of Demand``, per task."""
    meta = run.meta
    features = meta.features
    inputs = f"{meta.lookback} steps × {len(features)} features"
    if len(features) <= 4:
        inputs += f" ({', '.join(features)})"
    outputs = view_of(OUTPUT_TEXT, task_of(run), lambda meta: meta.target)(meta)
    return f"input {inputs} → {outputs}"
