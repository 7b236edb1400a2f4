"""The Forecast page's parts: pick a forecast run and an origin, run a multi-step strategy, what-if, draw.

The strategies and their equations are ``seqlab.forecasting.strategy_catalogue``;
this module reads the widgets, caches the forecasts (the model is loaded once
per run by ``cache.model``) and draws them beside the naive peers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import cache, figures, results
from seqlab.app.format import baseline_label
from seqlab.app.task_views import is_series
from seqlab.data import SequenceData
from seqlab.forecasting import peers as forecasting_peers
from seqlab.forecasting.exogenous import FUTURE_INPUTS
from seqlab.forecasting.scoring import StrategyScores, score_strategy
from seqlab.forecasting.series import ForecastSeries
from seqlab.forecasting.steppers import keras_predict
from seqlab.forecasting.strategies import lead_sigmas
from seqlab.forecasting.strategy_catalogue import STRATEGIES, Outcome, Strategy
from seqlab.plots import axis_title, error_by_step, regular_step
from seqlab.plots.forecast_page import forecast_with_bands
from seqlab.runs import Run
from seqlab.tasks import get_metric

FUTURE_EQUATIONS = {
    "known": r"\mathbf{x}_{t+\tau} = \text{the actual values}",
    "zero": r"\mathbf{x}_{t+\tau} = \bar{\mathbf{x}}_{\text{train}} \quad (0 \text{ in scaled units})",
    "predicted": r"\begin{aligned} \mathbf{x}_{t+\tau} &= f^{x}\left(\mathbf{x}_{t+\tau-1}, \dots,\right. \\"
                 r"&\qquad \left.\mathbf{x}_{t+\tau-T}\right) \end{aligned}",
}
DAY = "%a %d %b %Y"  # a forecast day, as the holiday what-if lists it
MAX_ITERATED = 4  # an iterated horizon may reach this many times the model's own H
TRAIN_KNOWN = "python -m seqlab train --dataset energy --model arx --set known_future=true"
MAX_SCORED = 100  # test origins scored at most on the page (every k-th beyond it)


def forecast_runs(runs: list[Run]) -> list[Run]:
    """The runs whose task forecasts one series (``Task.series``), whatever their name."""
    return [r for r in runs if is_series(r.meta.task)]


def explain_no_runs() -> None:
    st.info(
        "No forecast run yet. Train one on **Train** (a forecast dataset such as `energy` or `sine`), or run\n\n"
        f"```\n{TRAIN_KNOWN}\n```",
        icon=":material/query_stats:",
    )


def pick_run(runs: list[Run]) -> Run:
    by_id = {r.run_id: r for r in runs}
    run_id = st.selectbox(
        "Forecast run", list(by_id), key="forecast.run",
        format_func=lambda i: results.run_label(by_id[i]),
    )
    return by_id[run_id]


def load(run: Run) -> tuple[object, SequenceData]:
    """The run's model and its data (reloaded with its options); ``st.stop`` with a message if unreadable."""
    try:
        data = cache.dataset(run.spec["dataset"], run.spec.get("data_options", {}))
        model = cache.model(run)
    except (KeyError, ValueError, RuntimeError, OSError) as err:
        st.error(f"Cannot load this run: {err}. Retrain it, or pick another run.")
        st.stop()
    if len(data.splits["test"]) == 0:
        st.info("The test split of this run is empty: there is no origin to forecast from.")
        st.stop()
    return model, data


# ---------------------------------------------------------------- controls


def pick_strategy(strategies: list[Strategy], key: str) -> Strategy:
    names = [s.name for s in strategies]
    name = st.selectbox(
        "Strategy", names, key=key, format_func=lambda n: STRATEGIES.get(n).title,
        help="Direct: the model's own H outputs. Iterated: its first output fed back. Monte-Carlo: the "
             "iterated loop with Gaussian noise, many times. Free run: an echo state network's closed loop.",
    )
    return STRATEGIES.get(name)


def pick_horizon(strategy: Strategy, series: ForecastSeries, key: str) -> int:
    most = strategy.max_horizon(series) or MAX_ITERATED * series.horizon
    if key not in st.session_state:
        st.session_state[key] = series.horizon
    elif st.session_state[key] > most:  # a longer iterated horizon, then the direct strategy chosen
        st.session_state[key] = most
    return int(st.number_input(
        "Horizon", 1, most, key=key,
        help=f"Steps ahead. The model's own horizon is H = {series.horizon}; iterated strategies go further.",
    ))


def pick_origin(data: SequenceData, horizon: int, key: str) -> int:
    """A time slider over the test origins that leave ``horizon`` actual values; default the first midnight."""
    index = data.frame.index
    origins = [int(o) for o in data.splits["test"].origin if o + horizon <= len(index)]
    if not origins:
        st.error(f"No test origin has {horizon} actual values after it: shorten the horizon.")
        st.stop()
    if st.session_state.get(key) not in origins:
        st.session_state[key] = default_origin(index, origins)
    return st.select_slider(
        "Forecast origin (test period)", origins, key=key, format_func=lambda o: results.time_label(index, o),
        help="The first forecast step. The model sees only the rows before it.",
    )


def default_origin(index: pd.Index, origins: list[int]) -> int:
    """The first midnight among ``origins`` for sub-daily data, else the first origin."""
    step = regular_step(index)
    if step is not None and step < pd.Timedelta(days=1):
        midnight = [o for o in origins if index[o] == index[o].normalize()]
        if midnight:
            return midnight[0]
    return origins[0]


def pick_mode(series: ForecastSeries, key: str) -> str:
    if not series.exogenous:
        return "known"  # no exogenous input: every mode is the same
    return st.selectbox(
        "Future inputs", list(FUTURE_INPUTS), key=key, format_func=FUTURE_INPUTS.get,
        help="What the model gets for the exogenous inputs after the origin.",
    )


# ---------------------------------------------------------------- what-if


def what_if(series: ForecastSeries, data: SequenceData, origin: int, horizon: int, mode: str,
            key: str) -> tuple[ForecastSeries, tuple]:
    """Controls on the known future inputs; the changed series and a hashable summary of the change."""
    if not series.known:
        st.caption(
            "This run's model does not take known future inputs, so there is no what-if. A dataset that "
            "declares columns known ahead (energy: temperature and working day) takes the data option "
            f"`known_future`: `{TRAIN_KNOWN}`."
        )
        return series, ()
    values, changes = series.values.copy(), []
    rows = np.arange(origin, len(values))
    index = data.frame.index
    for column, place in zip(series.known, st.columns(len(series.known), gap="large")):
        j = series.features.index(column)
        with place:
            if set(np.unique(values[:, j])) <= {0.0, 1.0}:  # a calendar flag: whole days switched off
                days = working_days(index, values[:, j], origin, horizon)
                if not days:
                    st.caption(f"No day of this forecast has {column} = 1: no day to turn into a holiday.")
                    continue
                chosen = st.multiselect(
                    f"Days to turn into holidays ({column} = 0)", days, key=f"{key}.{column}.{origin}",
                    help=f"Sets {column} to 0 on those days of the forecast, as a public holiday would.",
                )
                values[rows[np.isin(np.asarray(index[rows].strftime(DAY)), chosen)], j] = 0.0
                changes.append((column, tuple(chosen)))
            else:
                shift = st.slider(
                    f"Shift {axis_title(column, data.units.get(column, ''))} over the forecast", -5.0, 5.0, 0.0, 0.5,
                    key=f"{key}.{column}",
                    help=f"Adds this to the known future {column} (a warmer or colder weather forecast).",
                )
                values[rows, j] += shift
                changes.append((column, shift))
    if mode != "known":
        st.caption("The what-if changes the known future inputs, which only the future-input mode *known* reads.")
    return series.with_values(values), tuple(changes)


def working_days(index: pd.Index, flag: np.ndarray, origin: int, horizon: int) -> list[str]:
    """The calendar days of the forecast with the flag at 1 somewhere (``Mon 01 Dec 2014``); none without times."""
    if not isinstance(index, pd.DatetimeIndex):
        return []
    rows = slice(origin, origin + horizon)
    days = pd.Series(flag[rows], index=index[rows].normalize())
    return [d.strftime(DAY) for d, on in days.groupby(level=0).max().items() if on == 1]


# ---------------------------------------------------------------- the forecast (cached)


@st.cache_data(show_spinner=False, max_entries=8)
def _sigma(path: str, created: str, _model, _data: SequenceData) -> np.ndarray:
    return lead_sigmas(keras_predict(_model), _data.splits["val"])


def noise_sigma(run: Run, model, data: SequenceData) -> np.ndarray:
    """The Monte-Carlo noise per lead: the std of the validation residuals at each step, once per run."""
    return _sigma(str(run.path), run.meta.created, model, data)


@st.cache_data(show_spinner=False, max_entries=64)
def _outcome(path: str, created: str, strategy: str, origin: int, horizon: int, mode: str, samples: int,
             changes: tuple, sigma: np.ndarray, _model, _series: ForecastSeries) -> Outcome:
    return STRATEGIES.get(strategy).run(_model, _series, [origin], horizon, mode, samples, sigma, 0)


def outcome(run: Run, model, series: ForecastSeries, strategy: Strategy, origin: int, horizon: int, mode: str,
            samples: int, changes: tuple, sigma: np.ndarray | float) -> Outcome:
    """The strategy's forecast from ``origin``, cached per run and setting (``changes``: the what-if)."""
    return _outcome(str(run.path), run.meta.created, strategy.name, origin, horizon, mode, samples, changes,
                    sigma, model, series)


# ---------------------------------------------------------------- drawing


@st.cache_data(show_spinner="Forecasting the peers…", max_entries=64)
def _peers(path: str, created: str, origin: int, horizon: int, _data: SequenceData) -> dict:
    found, _ = forecasting_peers(_data, np.array([origin]), horizon)
    return {baseline_label(name): np.asarray(f, dtype="float64")[0] for name, f in found.items()}


def peers(run: Run, data: SequenceData, origin: int, horizon: int) -> dict[str, np.ndarray]:
    """The baselines at this origin, ``(H_out,)`` each: naive, seasonal naive, Holt-Winters where defined."""
    return _peers(str(run.path), run.meta.created, origin, horizon, data)


def chart(data: SequenceData, origin: int, horizon: int, label: str, result: Outcome,
          others: dict[str, np.ndarray]) -> None:
    target, unit = data.target, data.units.get(data.target, "")
    series = data.frame[target]
    history = series.iloc[max(origin - max(data.lookback, horizon), 0) : origin]
    actual = series.iloc[origin : origin + horizon]
    index = actual.index
    lines = {label: pd.Series(result.forecast[0], index=index)}
    lines.update({name: pd.Series(values, index=index) for name, values in others.items()})
    bands = None
    if result.simulation is not None:
        bands = {level: (pd.Series(lo[0], index=index), pd.Series(hi[0], index=index))
                 for level, (lo, hi) in result.simulation.bands.items()}
    figure = forecast_with_bands(history, actual, lines, bands, unit=unit,
                                 title=f"{label} from {results.time_label(data.frame.index, origin)}")
    figures.show(figure, width="stretch", key="forecast.chart")


def errors(data: SequenceData, origin: int, horizon: int, label: str, result: Outcome,
           others: dict[str, np.ndarray]) -> None:
    """Absolute error by horizon step against the peers, and MAE / RMSE / band coverage at this origin."""
    unit = data.units.get(data.target, "")
    actual = data.target_series[origin : origin + horizon]
    forecasts = {label: result.forecast[0], **others}
    error = {name: np.abs(values - actual) for name, values in forecasts.items()}
    plot, table = st.columns([1, 1], gap="large")
    with plot:
        figures.show(
            error_by_step(error, unit, regular_step(data.frame.index), metric="absolute error",
                          title="Error by horizon step at this origin: |ŷ − y| (lower is better)"),
            width="stretch", key="forecast.errors",
        )
    mae, rmse = axis_title("MAE", unit), axis_title("RMSE", unit)
    rows = {name: {mae: float(e.mean()), rmse: float(np.sqrt((e**2).mean()))} for name, e in error.items()}
    with table:
        st.dataframe(pd.DataFrame(rows).T, width="stretch")
        if result.simulation is None:
            st.caption(f"Over the {horizon} steps from this origin. Choose a Monte-Carlo strategy for bands "
                       "and their coverage.")
            return
        bands = result.simulation.band_metrics(actual[None])
        st.dataframe(
            pd.DataFrame(
                {"coverage (%)": [100 * bands[level]["coverage"] for level in bands],
                 axis_title("mean width", unit): [bands[level]["width"] for level in bands]},
                index=pd.Index([f"{level} % band" for level in bands], name="Monte-Carlo band"),
            ),
            width="stretch",
            column_config={"coverage (%)": st.column_config.NumberColumn(format="%.0f %%")},
        )
        st.caption(f"Over the {horizon} steps from this origin. Coverage: the share of actual values inside the "
                   "Monte-Carlo band (nominal 80 % and 95 %).")


def equations(strategy: Strategy, mode: str, series: ForecastSeries, sigma: np.ndarray | None, unit: str) -> None:
    st.markdown("**Equations**")
    st.latex(strategy.equation)
    if series.exogenous and not strategy.direct:
        st.latex(FUTURE_EQUATIONS[mode])
    st.caption(
        f"t: the origin, τ: the step ahead, T = {series.lookback} (lookback), H = {series.horizon} (the model's "
        "outputs); x: the exogenous inputs."
    )
    if sigma is not None:
        unit = f" {unit}" if unit else ""
        st.caption(f"σ_τ = {sigma[0]:.3g}{unit} (τ = 0) to {sigma[-1]:.3g}{unit} (τ = {len(sigma) - 1}): the std of the "
                   "model's residuals at each step ahead on the validation split.")


# ---------------------------------------------------------------- the whole test period


@st.cache_data(show_spinner=False, max_entries=16)
def _scores(path: str, created: str, strategy: str, horizon: int, mode: str, samples: int, every: int,
            _model, _data: SequenceData) -> StrategyScores:
    return score_strategy(_model, _data, strategy, horizon, mode, samples, every)


def whole_test_period(run: Run, model, data: SequenceData, strategy: Strategy, horizon: int, mode: str, samples: int,
                key: str) -> None:
    """On demand: the strategy's errors (and band coverage) over every test origin, beside the peers."""
    st.markdown("**Over the whole test period**")
    origins = len(data.splits["test"])
    every = max(1, origins // MAX_SCORED)  # a Monte-Carlo over every origin would keep a classroom waiting
    if not st.button(f"Score {STRATEGIES.get(strategy.name).title} from every test origin", key=f"{key}.score",
                     icon=":material/functions:"):
        st.caption(f"Forecasts from {len(range(0, origins, every))} of the {origins} test origins (every {every}) "
                   f"with these settings, and scores them; the same as `python -m seqlab forecast {run.run_id} "
                   f"--strategy {strategy.name} --horizon {horizon} --future-inputs {mode} --every {every}`.")
        return
    with st.spinner("Forecasting from every test origin…"):
        try:
            scores = _scores(str(run.path), run.meta.created, strategy.name, horizon, mode,
                             samples if strategy.stochastic else 1, every, model, data)
        except ValueError as err:
            st.error(f"Cannot score: {err}")
            return
    unit = data.units.get(data.target, "")
    rows = {strategy.title: scores.model, **{baseline_label(n): m for n, m in scores.baselines.items()}}
    table = pd.DataFrame(rows).T.rename(columns=lambda k: get_metric(k).label(unit))
    st.dataframe(table, width="stretch")
    for level, band in scores.bands.items():
        st.caption(f"{level} % band: holds {100 * band['coverage']:.1f} % of the actual values "
                   f"(nominal {level} %), mean width {band['width']:.3g} {unit}.")
