"""Forecast runs' result views: the test window beside the baselines, the error per step ahead, the SavedModel's forecast.

Registered for the ``forecast`` task (``seqlab.app.task_views``); the Forecast
page's own strategies are ``seqlab.app.tasks.forecast_view``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import figures
from seqlab.app.format import baseline_label, seasonal_baseline, with_unit
from seqlab.app.results import model_title, pick_test_item, target_unit, time_label
from seqlab.app.task_views import OUTPUT_TEXT, PREDICTIONS, SERVING, view_for
from seqlab.data import SequenceData
from seqlab.forecasting import per_step_metrics
from seqlab.plots import error_by_step, forecast_window, regular_step
from seqlab.runs import Run


def forecast_parts(run: Run, data: SequenceData, origin: int) -> tuple[pd.Series, pd.Series]:
    target = run.meta.target
    history = data.frame[target].iloc[origin - data.lookback : origin]
    actual = data.frame[target].iloc[origin : origin + data.horizon]
    return history, actual


@view_for(PREDICTIONS, "forecast")
def _forecast_view(run: Run, preds: dict, data: SequenceData, key: str) -> None:
    target, unit = target_unit(run)
    i = pick_test_item(run, data, len(preds["origin"]), key=key)
    origin = int(preds["origin"][i])
    history, actual = forecast_parts(run, data, origin)
    index = actual.index
    forecasts = {f"model ({model_title(run.meta.model)})": pd.Series(preds["y_pred"][i], index)}
    names = [k.removeprefix("baseline_") for k in preds if k.startswith("baseline_")]
    seasonal = seasonal_baseline(names)
    ordered = ([seasonal] if seasonal else []) + [n for n in names if n != seasonal]
    for name in ordered:
        forecasts[baseline_label(name)] = pd.Series(preds[f"baseline_{name}"][i], index)
    hidden = tuple(baseline_label(n) for n in ordered if n != seasonal)
    fig = forecast_window(
        history, actual, forecasts, unit=unit, hidden=hidden,
        title=f"{target}: {data.horizon}-step forecast from {time_label(data.frame.index, origin)}",
    )
    figures.show(fig, key=f"{key}.chart")
    err = np.abs(preds["y_pred"][i] - preds["y_true"][i]).mean()
    caption = f"Model MAE on this window: {with_unit(err, unit)}."
    if hidden:
        caption += " Click a legend entry to show the other baselines."
    st.caption(caption)
    horizon_error_view(run, preds, data, key)


BASELINES_BY_STEP = 2  # the best baselines drawn beside the model: more lines would hide it


def horizon_error_view(run: Run, preds: dict, data: SequenceData, key: str) -> None:
    """Test MAE per horizon step of the model and its best baselines (``metrics.json``'s ``per_step``)."""
    _, unit = target_unit(run)
    # Runs saved before per-step metrics: the same MAE from their stored predictions.
    per_step = run.metrics.get("per_step") or {
        "model": per_step_metrics(preds["y_true"], preds["y_pred"]),
        "baselines": {k.removeprefix("baseline_"): per_step_metrics(preds["y_true"], preds[k])
                      for k in preds if k.startswith("baseline_")},
    }
    overall = run.metrics.get("baselines", {})
    best = sorted(per_step["baselines"], key=lambda n: overall.get(n, {}).get("mae") or np.inf)[:BASELINES_BY_STEP]
    errors = {f"model ({model_title(run.meta.model)})": per_step["model"]["mae"]}
    errors.update({baseline_label(n): per_step["baselines"][n]["mae"] for n in best})
    figures.show(error_by_step(errors, unit=unit, step=regular_step(data.frame.index)), key=f"{key}.by_step")
    st.caption("MAE over every test window at each step ahead: forecasts usually degrade with the lead time; "
               f"the {BASELINES_BY_STEP} baselines with the lowest overall MAE are drawn beside the model.")


@view_for(SERVING, "forecast")
def _served_forecast(run: Run, data: SequenceData, i: int, served, stored, key: str) -> list:
    target, unit = target_unit(run)
    origin = int(data.splits["test"].origin[i])
    history, actual = forecast_parts(run, data, origin)
    forecasts = {"SavedModel forecast": pd.Series(served, actual.index)}
    if stored is not None:
        forecasts["forecast stored at training"] = pd.Series(stored, actual.index)
    fig = forecast_window(
        history, actual, forecasts, unit=unit,
        title=f"SavedModel forecast of {target} from {time_label(data.frame.index, origin)}",
        styles={"forecast stored at training": dict(color="#2ca02c", width=0)},
    )
    figures.show(fig, key=f"{key}.chart")
    return [("MAE of this forecast", with_unit(float(np.abs(served - actual.to_numpy()).mean()), unit))]


view_for(OUTPUT_TEXT, "forecast")(lambda meta: f"{meta.horizon} steps of {meta.target}")
