"""Forecast: a run's multi-step forecast from one origin (direct, iterated, Monte-Carlo, free run), what-if."""

import streamlit as st

from seqlab.app.tasks import forecast_view as view
from seqlab.app import state
from seqlab.app.entry import require_entry
from seqlab.forecasting.series import ForecastSeries
from seqlab.forecasting.strategy_catalogue import available_strategies

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

st.title("Forecast")
st.caption(
    "Forecast a run's series from one origin in the test period, several ways: the model's own outputs "
    "(direct), its one-step prediction fed back (iterated), many noisy iterated futures (Monte-Carlo, with "
    "80 % and 95 % bands), or an echo state network's closed loop (free run). Beside it the naive peers at "
    "the same origin, and, for a model given the known future inputs, what happens if tomorrow is warmer "
    "or a holiday."
)

runs, broken = state.store().scan()
if broken:
    st.warning(f"{len(broken)} folder(s) in the run store are not readable runs; the Models page says why and "
               "deletes them.", icon=":material/folder_off:")
runs = view.forecast_runs(runs)
if not runs:
    view.explain_no_runs()
    st.stop()

top = st.columns([3, 3, 1.3, 1.3, 2.4], gap="medium")
with top[0]:
    run = view.pick_run(runs)
key = f"forecast.{run.run_id}"
model, data = view.load(run)
try:
    series = ForecastSeries.from_data(data)
except ValueError as err:
    st.error(f"{err} Pick another run.")
    st.stop()
with top[1]:
    strategy = view.pick_strategy(available_strategies(model), key=f"{key}.strategy")
with top[2]:
    horizon = view.pick_horizon(strategy, series, key=f"{key}.horizon")
with top[3]:
    samples = st.number_input("Samples S", 10, 2000, 200, step=50, key="forecast.samples",
                              disabled=not strategy.stochastic,
                              help="Sampled futures S of a Monte-Carlo strategy (seeded).")
with top[4]:
    mode = view.pick_mode(series, key=f"{key}.mode")
origin = view.pick_origin(data, horizon, key=f"{key}.origin")

with st.expander("What if: the known future inputs", expanded=bool(series.known)):
    changed, changes = view.what_if(series, data, origin, horizon, mode, key=f"{key}.whatif")

sigma = None
if strategy.stochastic:
    try:
        sigma = view.noise_sigma(run, model, data)
    except ValueError as err:
        st.error(f"{err} Choose a deterministic strategy.")
        st.stop()
with st.spinner(f"Simulating {samples} futures…" if strategy.stochastic else "Forecasting…"):
    try:
        result = view.outcome(run, model, changed, strategy, origin, horizon, mode,
                              int(samples) if strategy.stochastic else 1, changes, 0.0 if sigma is None else sigma)
    except ValueError as err:
        st.error(f"Cannot forecast: {err}")
        st.stop()

peers = view.peers(run, data, origin, horizon)
plot, maths = st.columns([5, 2], gap="medium")
with plot:
    view.chart(data, origin, horizon, strategy.title, result, peers)
with maths:
    view.equations(strategy, mode, series, sigma, data.units.get(data.target, ""))
view.errors(data, origin, horizon, strategy.title, result, peers)
view.whole_test_period(run, model, data, strategy, horizon, mode, int(samples), key=key)
