"""A finished run on screen: headline metrics, the table against the baselines, predictions, serving.

Every task (forecast, regress, classify, label) writes ``metrics.json`` as
``{"model": {...}, "baselines": {...}}`` and ``predictions.npz`` with
``y_true``, ``y_pred``, ``origin`` and ``baseline_<name>``; the views here read
those. Each task's figures are registered for it (``seqlab.app.task_views``)
beside their code, and chosen by the run's task.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import cache, figures, language_view  # noqa: F401  language_view registers its views
from seqlab.app.task_views import (
    OUTPUT_TEXT,
    PREDICTIONS,
    SERVING,
    in_target_unit,
    is_series,
    view_for,
    view_of,
)
from seqlab.app.format import (
    baseline_label,
    best_baseline,
    duration,
    headline_metrics,
    higher_is_better,
    metric_label,
    metric_unit,
    metric_value,
    metrics_table,
    primary_metric,
    seasonal_baseline,
    skill,
    style_best,
    with_unit,
)
from seqlab.data import SequenceData, get_dataset
from seqlab.forecasting import per_step_metrics
from seqlab.export import TRUST_LABEL, UntrustedModelError
from seqlab.models import get_architecture
from seqlab.plots import (
    class_probabilities,
    confusion_matrix,
    error_by_step,
    forecast_window,
    label_sequence,
    loss_curves,
    predicted_vs_actual,
    regular_step,
    runs_comparison,
    sample_preview,
)
from seqlab.runs import Run
from seqlab.tasks import get_task
from seqlab.tasks.loss_scale import LossScale, plain_scale
from seqlab.tasks.metrics import METRICS

SERVE_HELP = ("Between the SavedModel's answer and the one stored at training. Float32 round-off only: "
              "the SavedModel is the trained model.")
SKILL_HELP = ("How much better than the best baseline; positive: the model beats every baseline. Errors: "
              "1 − model / best baseline, in %. Accuracy: percentage points over the best baseline.")
NEAR_ZERO_HELP = (
    "MAPE divides by the true values, and this test series comes near or crosses zero, so a percentage "
    "of it means nothing. Judge the model by MAE, RMSE and its skill against the best baseline."
)


def model_title(name: str) -> str:
    try:
        return get_architecture(name).title
    except ValueError:
        return name


IMPORTED = "imported"  # the badge of a run added from someone's zip (``seqlab.run_import``): not trained here


def run_label(run: Run) -> str:
    """``name  ·  LSTM on energy  ·  run id`` (the name when the run has one, the imported badge when it is
    one): a run in every chooser."""
    named = f"{run.name}  ·  " if run.name else ""
    badge = f"  ·  [{IMPORTED}]" if run.imported else ""
    return f"{named}{model_title(run.meta.model)} on {run.meta.dataset}  ·  {run.run_id}{badge}"


def run_options(run: Run) -> dict:
    """A run's data and model options in one dict (what tells two runs of one model apart)."""
    return {**run.spec.get("data_options", {}), **run.spec.get("model_options", {})}


def choose_run(runs: list[Run], label: str, key: str, exclude: str | None = None) -> Run | None:
    """A run chooser; ``exclude`` drops one run and adds a "none" choice (for a comparison)."""
    by_id = {r.run_id: r for r in runs}
    options = [r.run_id for r in runs if r.run_id != exclude]
    if exclude is not None:
        options = [None, *options]
    run_id = st.selectbox(label, options, key=key,
                          format_func=lambda i: "(none)" if i is None else run_label(by_id[i]))  # fmt: skip
    return by_id.get(run_id)


def target_unit(run: Run) -> tuple[str, str]:
    return run.meta.target, run.meta.units.get(run.meta.target, "")


def task_of(run: Run) -> str:
    return run.meta.task


def reads_text(run: Run) -> bool:
    """The run's model reads token ids (a text run), not numbers."""
    return run.meta.input_dtype == "int32"


def classes_of(run: Run, data: SequenceData | None = None) -> tuple[str, ...]:
    return tuple(run.meta.classes or (data.classes if data is not None else ()))


# ---------------------------------------------------------------- metrics


def headline(run: Run, per_row: int = 2) -> None:
    """``st.metric`` cards: the task's metrics (the first with its skill against the best baseline), training time.

    ``per_row``: 2 for a narrow column (two rows of two), 4 for the full page width. Labels and
    values stay short so a narrow card shows them whole; the details are in each card's help.
    """
    _, unit = target_unit(run)
    model = run.metrics.get("model", {})
    task = task_of(run)
    keys = headline_metrics(run.metrics, task)
    primary = primary_metric(run.metrics, task)
    base_name, base = best_baseline(run.metrics, task=task)
    cards = st.columns(per_row)
    while len(cards) < len(keys) + 1:
        cards += st.columns(per_row)
    for i, key in enumerate(keys):
        label = f"Test {metric_label(key, '').split(' (')[0]}"
        if key not in model:  # MAPE left out: the truth comes near or crosses zero
            cards[i].metric(label, "n/a", "series near 0", delta_color="off", delta_arrow="off", help=NEAR_ZERO_HELP,
                            border=True)
            continue
        delta, help_text = None, "On the test split."
        if key == primary and base:
            gain = skill(run.metrics, task=task)
            # Skill as on Models and Lessons: positive when the model beats the best baseline.
            delta = f"{gain:+.1f} {'points' if higher_is_better(key) else '%'} skill"
            help_text = (
                f"On the test split. Skill against the best baseline ({baseline_label(base_name)}: "
                f"{with_unit(metric_value(key, base[key]), metric_unit(key, unit))}): "
                + ("the gain in percentage points" if higher_is_better(key) else "1 − model / baseline, in %")
                + "; " + ("the model beats it." if gain > 0 else "the model does not beat it yet.")
            )
        cards[i].metric(label, with_unit(metric_value(key, model[key]), metric_unit(key, unit), 4), delta,
                        delta_color="normal", help=help_text, border=True)
    epochs = run.meta.epochs_run
    cards[len(keys)].metric(
        "Training time", duration(run.meta.train_seconds), f"{epochs} epoch{'s' if epochs != 1 else ''}",
        delta_color="off", delta_arrow="off", border=True, help=f"{run.meta.parameters:,} trained weights.",
    )


def metrics_block(run: Run) -> None:
    """The model beside every baseline; the best value of each column highlighted."""
    _, unit = target_unit(run)
    table = metrics_table(
        run.metrics, unit, model_label=f"Model: {model_title(run.meta.model)}", task=task_of(run)
    )
    st.dataframe(style_best(table), width="stretch")
    st.caption(
        "On the test split, in the target's unit. The best value of each column is highlighted "
        "(lowest error, highest accuracy). " + baseline_note(task_of(run))
    )


def baseline_note(task: str) -> str:
    """What the task's baselines predict (``Task.baselines``); empty for an unknown task."""
    try:
        return get_task(task).baselines
    except ValueError:
        return ""


# ---------------------------------------------------------------- test-split views


def _run_data(run: Run) -> tuple[dict, SequenceData] | None:
    try:
        preds = cache.predictions(run)
        data = cache.dataset(run.spec["dataset"], run.spec.get("data_options", {}))
    except (OSError, ValueError, KeyError, RuntimeError) as err:
        st.warning(f"Cannot show this run's predictions: {err}")
        return None
    if len(preds.get("origin", ())) == 0:
        st.info("The test split of this run is empty.")
        return None
    return preds, data


def _time_label(index: pd.Index, row: int) -> str:
    value = index[row]
    if isinstance(value, pd.Timestamp):
        return value.strftime("%a %d %b %Y, %H:%M")
    return f"step {value}"


def pick_test_item(run: Run, data: SequenceData, count: int, key: str, label: str | None = None) -> int:
    """A slider over the test split: forecast origins as times, else sample numbers."""
    origins = data.splits["test"].origin
    if is_series(task_of(run)):
        return st.select_slider(
            label or "Test window (forecast origin)",
            options=list(range(count)),
            value=count // 2,
            format_func=lambda i: _time_label(data.frame.index, int(origins[i])),
            key=key,
            help="Each test window starts forecasting at this time; drag to browse the test split.",
        )
    return st.select_slider(
        label or "Test sequence",
        options=list(range(count)),
        value=0,
        format_func=lambda i: f"#{i + 1} of {count} (sample {int(origins[i])})",
        key=key,
    )


def reads_images(dataset: str) -> bool:
    """The dataset's sequences are images read row by row (``DatasetInfo.kinds``); False for an unknown one."""
    try:
        return "image" in get_dataset(dataset).kinds
    except ValueError:
        return False


def sample_frame(data: SequenceData, sample_id: int) -> pd.DataFrame:
    """One independent sequence's rows (index t) from the long ``(sample, t)`` frame."""
    return data.frame.xs(int(sample_id), level="sample")


def forecast_parts(run: Run, data: SequenceData, origin: int) -> tuple[pd.Series, pd.Series]:
    target = run.meta.target
    history = data.frame[target].iloc[origin - data.lookback : origin]
    actual = data.frame[target].iloc[origin : origin + data.horizon]
    return history, actual


def predictions_view(run: Run, key: str) -> None:
    """The test-split figure registered for the run's task (``PREDICTIONS``)."""
    loaded = _run_data(run)
    if loaded is None:
        return
    preds, data = loaded
    view_of(PREDICTIONS, task_of(run), _no_figure, text=reads_text(run))(run, preds, data, key)


def _no_figure(run: Run, preds: dict, data: SequenceData, key: str) -> None:
    st.info(f"No figure for {task_of(run)!r} runs yet; the metrics above say how it did.")


@view_for(PREDICTIONS, "regress")
def _regression_view(run: Run, preds: dict, data: SequenceData, key: str) -> None:
    target, unit = target_unit(run)
    fig = predicted_vs_actual(
        preds["y_true"], preds["y_pred"], name=target, unit=unit,
        baseline=preds.get("baseline_mean"), baseline_name=baseline_label("mean"),
    )
    figures.show(fig, key=f"{key}.scatter")
    st.caption("Every test sequence: the closer to the dashed diagonal, the better.")


@view_for(PREDICTIONS, "classify")
def _confusion_view(run: Run, preds: dict, data: SequenceData, key: str) -> None:
    classes = classes_of(run, data)
    figures.show(confusion_matrix(preds["y_true"], preds["y_pred"], classes), key=f"{key}.confusion")
    st.caption("Test sequences by true class (rows) and predicted class (columns): a good model fills the diagonal.")


@view_for(PREDICTIONS, "label")
def _labels_view(run: Run, preds: dict, data: SequenceData, key: str) -> None:
    classes = classes_of(run, data)
    i = pick_test_item(run, data, len(preds["origin"]), key=f"{key}.item")
    rows = {"truth": preds["y_true"][i], "model": preds["y_pred"][i]}
    rows.update({baseline_label(k.removeprefix("baseline_")): preds[k][i] for k in preds if k.startswith("baseline_")})
    figures.show(label_sequence(rows, classes, title=f"Test sequence #{i + 1}"), key=f"{key}.labels")


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
        title=f"{target}: {data.horizon}-step forecast from {_time_label(data.frame.index, origin)}",
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


def history_view(run: Run, key: str, title: str = "Loss history (thin: each batch; markers: epoch means)") -> None:
    """The run's recorded losses, per batch and per epoch."""
    batches, epochs = run.history.get("batch", []), run.history.get("epoch", [])
    if not batches and not epochs:
        st.info("This run has no recorded loss history.")
        return
    figures.show(loss_curves(batches, epochs, scale=loss_scale_of(run), title=title), key=f"{key}.history")


def loss_scale_of(run: Run) -> LossScale:
    """How the run's task reads its loss (``Task.loss_scale``)."""
    try:
        task = get_task(task_of(run))
    except ValueError:
        return plain_scale("mse")
    return task.loss_scale(target_unit(run)[1], run.spec.get("data_options", {}))


def run_overview(run: Run, key: str) -> None:
    """Headline metrics, the metrics table and the test-split figure."""
    if run.status == "cancelled":
        st.warning(
            f"Training was cancelled after {run.meta.epochs_run} epoch(s); the run was saved "
            "with the weights it had, and evaluated like any other."
        )
    headline(run, per_row=4)
    st.markdown("**Test metrics against the baselines**")
    metrics_block(run)
    predictions_view(run, key=f"{key}.window")


# ---------------------------------------------------------------- serving


def serve_view(run: Run, key: str) -> None:
    """Load the run's SavedModel (cached), predict one test item with it, plot it against the truth."""
    loaded = _run_data(run)
    if loaded is None:
        return
    preds, data = loaded
    test = data.splits["test"]
    task = task_of(run)
    _, unit = target_unit(run)
    label = "Test window to predict" if is_series(task) else "Test sequence to predict"
    i = pick_test_item(run, data, len(test), key=f"{key}.item", label=label)
    loaded_key = f"{key}.loaded"
    if st.button("Load SavedModel and predict", type="primary", icon=":material/rocket_launch:", key=f"{key}.go"):
        st.session_state[loaded_key] = True
    if not st.session_state.get(loaded_key):
        st.caption("The SavedModel loads once, then every window you pick is predicted at once.")
        return
    trust_key = f"{key}.trusted"
    try:
        serve = cache.serving(run, trust=st.session_state.get(trust_key, False))
    except UntrustedModelError as err:
        st.warning(str(err), icon=":material/gpp_maybe:")
        if st.button(TRUST_LABEL, key=f"{key}.trust", icon=":material/warning:"):
            st.session_state[trust_key] = True
            st.rerun()
        return
    except ValueError as err:
        st.error(f"Could not serve the SavedModel: {err}")
        return
    served = serve(test.inputs_of(slice(i, i + 1)))[0]  # (1, ...) raw inputs -> one prediction
    same = i < len(preds["origin"]) and int(preds["origin"][i]) == int(test.origin[i])
    stored = preds.get("probabilities", preds["y_pred"])[i] if same else None
    if stored is not None and np.shape(stored) != np.shape(served):
        stored = None  # the run kept only its choices (a language run's next tokens): nothing to compare
    gap = float(np.abs(np.asarray(served) - np.asarray(stored)).max()) if stored is not None else None

    cards = view_of(SERVING, task, _served_as_is, text=reads_text(run))(run, data, i, served, stored, key)
    if gap is not None:
        gap_unit = unit if in_target_unit(task) else ""
        cards.append(("Largest gap", with_unit(gap, gap_unit, 2)))
    for col, (label, value) in zip(st.columns(max(len(cards), 1)), cards):
        col.metric(label, value, border=True, help=SERVE_HELP if label == "Largest gap" else None)
    st.caption(f"Served from `{run.savedmodel_path}` with `seqlab.export.load_serving` (TensorFlow only).")


def _served_as_is(run: Run, data: SequenceData, i: int, served, stored, key: str) -> list:
    st.write(served)
    return []


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
        title=f"SavedModel forecast of {target} from {_time_label(data.frame.index, origin)}",
        styles={"forecast stored at training": dict(color="#2ca02c", width=0)},
    )
    figures.show(fig, key=f"{key}.chart")
    return [("MAE of this forecast", with_unit(float(np.abs(served - actual.to_numpy()).mean()), unit))]


@view_for(SERVING, "regress")
def _served_regression(run: Run, data: SequenceData, i: int, served, stored, key: str) -> list:
    target, unit = target_unit(run)
    test = data.splits["test"]
    figures.show(
        sample_preview(sample_frame(data, test.origin[i]), list(data.features), data.target, data.units,
                       title="The input sequence", image=reads_images(data.name)),
        key=f"{key}.input",
    )
    return [
        (f"Actual {target}", with_unit(float(np.ravel(test.y[i])[0]), unit)),
        (f"SavedModel {target}", with_unit(float(np.ravel(served)[0]), unit)),
    ]


@view_for(SERVING, "classify")
def _served_class(run: Run, data: SequenceData, i: int, served, stored, key: str) -> list:
    classes = classes_of(run, data)
    test = data.splits["test"]
    truth = int(test.y[i])
    bars = {"SavedModel": served}
    if stored is not None:
        bars["stored at training"] = stored
    left, right = st.columns(2)
    left.plotly_chart(
        sample_preview(sample_frame(data, test.origin[i]), list(data.features), data.target, data.units,
                       classes=classes, title="The input sequence", image=reads_images(data.name)),
        key=f"{key}.input",
    )
    right.plotly_chart(class_probabilities(bars, classes, truth), key=f"{key}.probs")
    return [("True class", classes[truth]), ("SavedModel predicts", classes[int(np.argmax(served))])]


@view_for(SERVING, "label")
def _served_labels(run: Run, data: SequenceData, i: int, served, stored, key: str) -> list:
    classes = classes_of(run, data)
    rows = {"truth": data.splits["test"].y[i], "SavedModel": np.argmax(served, axis=-1)}
    figures.show(label_sequence(rows, classes, title="SavedModel labels"), key=f"{key}.labels")
    return [("Steps right", f"{int((rows['SavedModel'] == rows['truth']).sum())} of {len(rows['truth'])}")]


# ---------------------------------------------------------------- the runs table


# How the columns of ``runs_table`` are shown wherever it is drawn (Models, Lessons, Compare).
RUN_COLUMNS = {
    "run": st.column_config.TextColumn("run", width="medium", help="The run's folder name (its id)."),
    "name": st.column_config.TextColumn(
        "name", width="large",
        help="Your name for the run, or its preset's: the preset and what sets the run apart (rename it on Models)."),
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
                "origin": IMPORTED if run.imported else "trained here",
                "dataset": run.meta.dataset,
                "task": task_of(run),
                "model": model_title(run.meta.model),
                "status": run.status,
                "epochs": run.meta.epochs_run,
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
    must share one metric (its label reads ``MAE (GW)``). Errors on a log axis: one run far
    off (a diverged one, an untrained baseline) would flatten the winners' bars."""
    name, _, unit = table["metric"].iloc[0].partition(" (")
    error = not any(m.higher_is_better for m in METRICS.values() if m.name == name)
    return runs_comparison(
        [f"{r.model} · {r.run[:15]}" for r in table.itertuples()],
        table["test"].tolist(), table["best baseline"].tolist(), metric=name, unit=unit.rstrip(")"), title=title,
        log_y=error,
    )


def io_summary(run: Run) -> str:
    """``96 steps × 3 features (Demand, ...) → 48 steps of Demand``, per task."""
    meta = run.meta
    features = meta.features
    inputs = f"{meta.lookback} steps × {len(features)} features"
    if len(features) <= 4:
        inputs += f" ({', '.join(features)})"
    outputs = view_of(OUTPUT_TEXT, task_of(run), lambda meta: meta.target)(meta)
    return f"input {inputs} → {outputs}"


view_for(OUTPUT_TEXT, "forecast")(lambda meta: f"{meta.horizon} steps of {meta.target}")
view_for(OUTPUT_TEXT, "regress")(
    lambda meta: f"{meta.target}" + (f" ({meta.horizon} values)" if meta.horizon != 1 else "")
)
view_for(OUTPUT_TEXT, "classify")(lambda meta: f"{meta.target} (one of {len(meta.classes or [])} classes)")
view_for(OUTPUT_TEXT, "label")(lambda meta: f"{meta.target} at every step ({len(meta.classes or [])} classes)")
