"""A finished run on screen, whatever its task: headline metrics, the table against the baselines, the
test-split figure and the SavedModel's answer chosen by the run's task.

Every task writes ``metrics.json`` as ``{"model": {...}, "baselines": {...}}``
and ``predictions.npz`` with ``y_true``, ``y_pred``, ``origin`` and
``baseline_<name>``; the views here read those. Each task's figures are
registered for it (``seqlab.app.task_views``) in its module of
``seqlab.app.tasks``, and chosen by the run's task.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import cache, figures
from seqlab.app.task_views import PREDICTIONS, SERVING, in_target_unit, is_series, view_of
from seqlab.app.projector_style import projector_on
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
    skill,
    style_best,
    with_unit,
)
from seqlab.data import SequenceData, get_dataset
from seqlab.export import TRUST_LABEL, UntrustedModelError
from seqlab.late_export import add_savedmodel
from seqlab.models import get_architecture
from seqlab.plots import loss_curves
from seqlab.runs import Run
from seqlab.tasks import get_task
from seqlab.tasks.loss_scale import LossScale, plain_scale

SERVE_HELP = ("Between the SavedModel's answer and the one stored at training. Float32 round-off only: "
              "the SavedModel is the trained model.")
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
    # On a projector the id's dataset and model, said already, give way: a chooser's field cannot wrap.
    run_id = re.sub(r"^(\d{8}-\d{6})-.+-(\w+)$", r"\1-…-\2", run.run_id) if projector_on() else run.run_id
    return f"{named}{model_title(run.meta.model)} on {run.meta.dataset}  ·  {run_id}{badge}"


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


def time_label(index: pd.Index, row: int) -> str:
    """A row of the data's index as every page shows it: its time, or its step."""
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
            format_func=lambda i: time_label(data.frame.index, int(origins[i])),
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


def predictions_view(run: Run, key: str) -> None:
    """The test-split figure registered for the run's task (``PREDICTIONS``)."""
    loaded = _run_data(run)
    if loaded is None:
        return
    preds, data = loaded
    view_of(PREDICTIONS, task_of(run), _no_figure, text=reads_text(run))(run, preds, data, key)


def _no_figure(run: Run, preds: dict, data: SequenceData, key: str) -> None:
    st.info(f"No figure for {task_of(run)!r} runs yet; the metrics above say how it did.")


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
    if not run.has_savedmodel:
        export_later(run, key)
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


def export_later(run: Run, key: str) -> None:
    """For a run trained without its SavedModel: a button that exports it now (``add_savedmodel``, seconds), then
    serves it. Two sessions may press at once: the second finds the first's."""
    st.info("This run was trained without its SavedModel (train --no-savedmodel, or under JAX without "
            "TensorFlow): export it from the Keras model to serve it.", icon=":material/info:")
    if not st.button("Export the SavedModel", icon=":material/save:", key=f"{key}.export"):
        return
    try:
        with st.spinner("Exporting the SavedModel: tracing its serving functions, a few seconds…"):
            add_savedmodel(run)
    except (OSError, ValueError) as err:
        if not run.has_savedmodel:  # not another session's export that landed first
            st.error(f"Could not export the SavedModel: {err}")
            return
    st.toast("SavedModel exported and signed", icon=":material/check_circle:")
    st.rerun()  # drawn again as a run that has it: loaded and served


def _served_as_is(run: Run, data: SequenceData, i: int, served, stored, key: str) -> list:
    st.write(served)
    return []
