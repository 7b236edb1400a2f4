"""Lesson views for the recurrent and time-series lessons (see ``seqlab.app.lessons.lesson_views``).

Each draws one picture of Inspect's or Forecast's on the lesson's runs: the
traces and gradients come from ``seqlab.app.cache`` (so the Inspect page
reuses them), the input is read by the run task's own Inspect reader.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import cache, figures, results
from seqlab.app.inspect.inspect_view import (
    DEFAULT_UNITS,
    InspectInput,
    gradient_spread,
    layer_pictures,
    read_input,
    sample_outcome,
    traced_layers,
)
from seqlab.app.lessons.lesson_views import lesson_view, run_dataset, traced_test_item
from seqlab.app.run_table import run_title
from seqlab.inspect import HMMTrace
from seqlab.plots import gradient_norms, hmm_posteriors, state_heatmap, transition_matrix
from seqlab.plots.forecast_page import forecast_with_bands
from seqlab.runs import Run
from seqlab.tasks import get_task


def _of_model(runs: list[Run], *models: str) -> list[Run]:
    return [run for run in runs if run.meta.model in models]


# ---------------------------------------------------------------- Markov chain and HMM


@lesson_view("hmm-states")
def hmm_states(runs: list[Run], key: str) -> None:
    """The HMM's posterior over its hidden states for every character of a text, and its transition matrix."""
    traced = traced_test_item(_of_model(runs, "hmm"), key,
                     "The hidden Markov model's run did not finish: run the lesson again to see its states.")
    if traced is None:
        return
    _, _, inp, tr = traced
    [hmm] = tr.of(HMMTrace)
    figures.show(hmm_posteriors(hmm.arrays["gamma"], inp.time, hmm.arrays["path"],
                                title="Which hidden state wrote each character: γₙ(k) = p(zₙ = k | x)"),
                 key=f"{key}.gamma")
    st.caption("One column per character, its colours summing to 1 over the states (forward-backward); the dots "
               "are the Viterbi path. Rewrite the text and watch spaces, vowels and consonants change state.")
    figures.show(transition_matrix(hmm.arrays["A"], title=f"Transition matrix A ({hmm.states} states)"),
                 key=f"{key}.A")
    st.caption("Row j: where state j goes next. A Markov chain of order 1 is this table over the characters "
               "themselves; the HMM's rows are over states that it learned to group them into.")


# ---------------------------------------------------------------- forecasts of one test window


def _forecasts(runs: list[Run], key: str, title: str) -> None:
    """Every forecast run's saved test forecast from one origin (a slider), against what happened."""
    data = run_dataset(runs[0])
    if data is None:
        return
    predictions = {run_title(run, runs): cache.predictions(run) for run in runs}
    origins = next(iter(predictions.values()))["origin"]
    i = results.pick_test_item(runs[0], data, len(origins), key=f"{key}.origin")
    origin, horizon = int(origins[i]), data.horizon
    series = data.frame[data.target]
    history = series.iloc[max(origin - data.lookback, 0) : origin]
    actual = series.iloc[origin : origin + horizon]
    lines = {}
    for label, saved in predictions.items():
        rows = np.flatnonzero(saved["origin"] == origin)
        if len(rows):  # a run whose windows start elsewhere has no forecast from here
            lines[label] = pd.Series(saved["y_pred"][rows[0]], index=actual.index)
    figures.show(forecast_with_bands(history, actual, lines, unit=data.units.get(data.target, ""), title=title),
                 key=f"{key}.forecast")
    unit = data.units.get(data.target, "")
    errors = {label: float(np.abs(line.to_numpy() - actual.to_numpy()).mean()) for label, line in lines.items()}
    st.caption("MAE from this origin: " + "; ".join(f"{label} {error:.3g} {unit}".strip()
                                                     for label, error in errors.items()) + ".")


@lesson_view("day-ahead")
def day_ahead(runs: list[Run], key: str) -> None:
    """Tomorrow's demand forecast at midnight by every run: with tomorrow's weather, and without."""
    _forecasts(runs, key, "Tomorrow's 48 half-hours, forecast at midnight")
    st.caption("Drag the slider to a hot or a cold day, or a holiday: the runs given tomorrow's temperature and "
               "working day follow it, the one without them can only repeat the recent past. Open Forecast to "
               "change tomorrow's temperature yourself.")


# ---------------------------------------------------------------- recurrent cells


@lesson_view("gradients-through-time")
def gradients_through_time(runs: list[Run], key: str) -> None:
    """‖∂L/∂hₜ‖ of every run on one test sequence, on one chart: how far back each cell's gradient reaches."""
    data = run_dataset(runs[0])
    if data is None:
        return
    test = data.splits["test"]
    i = results.pick_test_item(runs[0], data, len(test), key=f"{key}.sample")
    x, target = np.asarray(test.x[i], dtype="float32"), np.asarray(test.y[i])
    time = list(range(1, x.shape[0] + 1))
    norms, spreads = {}, []
    for run in runs:
        try:
            grads = cache.run_gradients(run, x, target, get_task(results.task_of(run)).loss)
        except (ValueError, NotImplementedError, OSError) as err:
            st.warning(f"Cannot differentiate run `{run.run_id}` through time: {err}")
            continue
        label = run_title(run, runs)
        norms[label] = grads.layers[0].norms
        spreads.append(f"{label} {gradient_spread(grads.layers[0].norms)}")
    if not norms:
        return
    figures.show(gradient_norms(norms, time, title="Gradient through time: ‖∂L/∂hₜ‖ on one test sequence",
                                time_title="step t"),
                 key=f"{key}.bptt")
    markers = np.flatnonzero(x[:, -1] > 0.5) + 1 if data.features[-1] == "marker" else []  # the adding problem
    st.caption(
        "How much this sequence's loss changes per unit change of the state at step t, through every step after "
        f"it. How far it ranges across the sequence: {'; '.join(spreads)}."
        + (f" The marked values are at steps {', '.join(map(str, markers))}." if len(markers) else "")
    )


@lesson_view("gates")
def gates(runs: list[Run], key: str) -> None:
    """The first recurrent run's cell over one test sequence: state, gates, cell state (LSTM), the state's path."""
    traced = traced_test_item([run for run in runs if traced_layers(run)[0]], key,
                     "No recurrent run of this lesson finished: run it again to see its gates.")
    if traced is None:
        return
    run, data, inp, tr = traced
    layer = tr.cells[0]
    unit_ids = layer.top_units(min(DEFAULT_UNITS, layer.units))
    shown = "all units" if len(unit_ids) == layer.units else f"the {len(unit_ids)} most active of {layer.units}"
    layer_pictures(tr, layer, unit_ids, shown, inp.inputs, inp.time, inp.time_title, inp.time_index)
    sample_outcome(run, data, tr.outputs, inp.y_true)


@lesson_view("reservoir")
def reservoir(runs: list[Run], key: str) -> None:
    """The echo state network's reservoir states on one test window, then every run's forecast from it."""
    traced = traced_test_item(_of_model(runs, "esn"), key,
                     "The echo state network's run did not finish: run the lesson again to see its reservoir.")
    if traced is not None:
        _, _, inp, tr = traced
        layer = tr.cells[0]
        unit_ids = layer.top_units(DEFAULT_UNITS)
        figures.show(state_heatmap(layer.arrays["h"][:, unit_ids], inp.time, unit_ids, inputs=inp.inputs,
                                   kind=layer.kind, total_units=layer.units, time_title=inp.time_title,
                                   title=f"Reservoir states zₜ: the {len(unit_ids)} most active of {layer.units}"),
                     key=f"{key}.states")
        st.caption("Random and fixed: no weight of the reservoir was trained. Each unit echoes the input at its own "
                   "pace; the readout only weighs the last column.")
    _forecasts(runs, f"{key}.forecasts", "Every run's forecast from one test window")


@lesson_view("directions")
def directions(runs: list[Run], key: str) -> None:
    """The bidirectional run's forward and backward states under the characters, and both runs' tags."""
    traced = traced_test_item([run for run in runs if run.spec.get("model_options", {}).get("bidirectional")], key,
                     "The bidirectional run did not finish: run the lesson again to see its two directions.")
    if traced is None:
        return
    _, data, inp, tr = traced
    columns = st.columns(len(tr.cells))
    for column, layer in zip(columns, tr.cells):
        unit_ids = layer.top_units(min(DEFAULT_UNITS, layer.units))
        with column:
            figures.show(state_heatmap(layer.arrays["h"][:, unit_ids], inp.time, unit_ids, kind=layer.kind,
                                       total_units=layer.units, time_title=inp.time_title,
                                       title=f"{layer.direction.capitalize()} state: {len(unit_ids)} units"),
                         key=f"{key}.{layer.direction}")
    st.caption("The forward state at a character has read the text up to it; the backward one the text after it. "
               "A tag reads both: \"twenty\" after \"march \" is the day in \"march twenty-three, ...\" but the year in "
               "\"march twenty twenty-three\", which only the text after it tells.")
    for column, run in zip(st.columns(len(runs)), runs):
        with column:
            st.markdown(f"**{run_title(run, runs)}**")
            sample_outcome(run, data, cache.run_trace(run, inp.x, inp.time).outputs, inp.y_true)
