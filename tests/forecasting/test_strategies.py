"""Multi-step strategies: direct, iterated, Monte-Carlo, free run; future-input modes; band metrics."""

import numpy as np
import pytest

from seqlab.forecasting import band_metrics
from seqlab.forecasting.exogenous import exogenous_path
from seqlab.forecasting.series import ForecastSeries
from seqlab.forecasting.steppers import WindowSteps, can_free_run, keras_predict
from seqlab.forecasting.strategies import direct, free_run, iterated, lead_sigmas, monte_carlo, simulate

A, B, C = 0.9, 0.5, 0.1  # y_t = A y_{t-1} + B x_{t-1} + C: the hand-made one-step model
T, H = 4, 3


def make_series(rows=60, known=(), horizon=H):
    t = np.arange(rows)
    x = np.sin(2 * np.pi * t / 12)
    y = np.cos(t / 5.0) + 0.1 * t / rows
    values = np.c_[y, x]
    return ForecastSeries(
        values=values, features=("y", "x"), known=known, lookback=T, horizon=horizon,
        mean=values[:40].mean(axis=0), std=values[:40].std(axis=0), train_end=40,
    )


def linear_model(window):
    """Output h: f^h = A y_{t-1} + B x_{t-1} + C + h (only output 0 is the one-step model)."""
    one_step = A * window[:, -1, 0] + B * window[:, -1, 1] + C
    return np.stack([one_step + h for h in range(H)], axis=1)


def known_model(inputs):
    """With known inputs: f^h = A y_{t-1} + B x_{t+h} (the future input of its own step)."""
    window, future = inputs
    return np.stack([A * window[:, -1, 0] + B * future[:, h, 0] for h in range(H)], axis=1)


def test_iterated_is_the_closed_form_recursion_beyond_the_models_horizon():
    series = make_series()
    origins, steps = np.array([10, 25]), 7
    forecast = iterated(linear_model, series, origins, steps, mode="known")
    y, x = series.values[:, 0], series.values[:, 1]
    for n, o in enumerate(origins):
        previous = y[o - 1]
        for tau in range(steps):
            previous = A * previous + B * x[o + tau - 1] + C
            assert forecast[n, tau] == pytest.approx(previous)


def test_iterated_feeds_a_known_input_model_the_future_of_every_step():
    series = make_series(known=("x",))
    o, steps = 20, 5
    forecast = iterated(known_model, series, [o], steps)[0]
    y, x = series.values[:, 0], series.values[:, 1]
    previous = y[o - 1]
    for tau in range(steps):
        previous = A * previous + B * x[o + tau]
        assert forecast[tau] == pytest.approx(previous, rel=1e-6)


def test_direct_is_the_models_own_outputs_with_the_actual_known_inputs():
    series = make_series(known=("x",))
    origins = np.array([8, 30])
    windows = np.stack([series.values[o - T : o] for o in origins]).astype("float32")
    future = np.stack([series.values[o : o + H, 1:] for o in origins]).astype("float32")
    np.testing.assert_allclose(direct(known_model, series, origins), known_model([windows, future]))
    np.testing.assert_allclose(direct(known_model, series, origins, horizon=2), known_model([windows, future])[:, :2])
    with pytest.raises(ValueError, match="at most the model's own 3 steps"):
        direct(known_model, series, origins, horizon=4)


def test_future_input_modes_give_different_paths_and_known_reads_the_series():
    series = make_series()
    o = 44  # after the training rows
    paths = {mode: exogenous_path(series, [o], 8, mode)[0] for mode in ("known", "zero", "predicted")}
    np.testing.assert_allclose(paths["known"][:, 1], series.values[o : o + 8, 1])
    np.testing.assert_allclose(paths["zero"][:, 1], series.mean[1])
    # A pure sine is a linear recursion: its own ARX f^x continues it (36 training windows, ridge 1).
    np.testing.assert_allclose(paths["predicted"][:, 1], series.values[o : o + 8, 1], atol=0.1)
    assert np.isnan(paths["known"][:, 0]).all()  # the future target is never handed over
    forecasts = {m: iterated(linear_model, series, [o], 8, mode=m)[0] for m in paths}
    assert not np.allclose(forecasts["known"], forecasts["zero"])
    assert not np.allclose(forecasts["predicted"], forecasts["zero"])
    # Past the end of the data, known repeats the last row.
    tail = exogenous_path(series, [58], 5, "known")[0, :, 1]
    np.testing.assert_allclose(tail[2:], series.values[-1, 1])
    with pytest.raises(ValueError, match="valid modes: known, zero, predicted"):
        exogenous_path(series, [o], 3, "weather")


@pytest.mark.parametrize("mode", ["known", "zero", "predicted"])
def test_no_value_after_the_origin_changes_the_forecast_but_a_known_input(mode):
    series = make_series(known=("x",))
    o = 44  # after the training rows, which f^x is fitted on
    changed = series.values.copy()
    changed[o:, 0] += 100.0  # the future target: never read
    if mode != "known":
        changed[o:, 1] -= 7.0  # future inputs: read only in 'known' mode
    other = series.with_values(changed)
    for strategy in (
        lambda s: direct(known_model, s, [o], mode=mode),
        lambda s: iterated(known_model, s, [o], 6, mode=mode),
        lambda s: monte_carlo(WindowSteps(known_model), s, [o], 6, sigma=0.3, samples=20, mode=mode).samples,
    ):
        np.testing.assert_array_equal(strategy(series), strategy(other))
    if mode == "known":  # the what-if: a known input changed after the origin moves the forecast
        warmer = series.values.copy()
        warmer[o:, 1] += 1.0
        warm = series.with_values(warmer)
        assert not np.allclose(iterated(known_model, series, [o], 6), iterated(known_model, warm, [o], 6))


def test_monte_carlo_mean_approaches_iterated_as_sigma_shrinks_and_bands_widen():
    series = make_series()
    origins, steps = np.array([12, 33]), 8
    exact = iterated(linear_model, series, origins, steps)
    stepper = WindowSteps(linear_model)
    errors = [np.abs(monte_carlo(stepper, series, origins, steps, sigma=s, samples=400).mean - exact).max()
              for s in (0.5, 0.05, 0.0)]
    assert errors[0] > errors[1] > errors[2] == 0
    mc = monte_carlo(stepper, series, origins, steps, sigma=0.5, samples=2000, seed=1)
    for level in (80, 95):
        width = mc.bands[level][1] - mc.bands[level][0]
        assert (np.diff(width.mean(axis=0)) > 0).all()  # the noise accumulates through the feedback
    assert (mc.bands[95][0] < mc.bands[80][0]).all() and (mc.bands[95][1] > mc.bands[80][1]).all()
    # Linear model: the step-1 variance is sigma^2, then A^2 sigma^2 + sigma^2, ...
    assert mc.variance[:, 0] == pytest.approx([0.25, 0.25], rel=0.1)
    assert mc.variance[:, 1] == pytest.approx([0.25 * (1 + A**2)] * 2, rel=0.1)
    np.testing.assert_allclose(np.diagonal(mc.covariance, axis1=1, axis2=2), mc.variance)
    assert mc.covariance[0, 0, 1] == pytest.approx(A * 0.25, rel=0.15)  # y_{t+1} carries A eps_t
    again = monte_carlo(stepper, series, origins, steps, sigma=0.5, samples=2000, seed=1)
    np.testing.assert_array_equal(again.samples, mc.samples)  # seeded


def test_simulation_is_one_batch_per_step():
    series = make_series()
    batches = []

    def counting(window):
        batches.append(len(window))
        return linear_model(window)

    simulate(WindowSteps(counting), series, [10, 20, 30], 5, sigma=0.1, samples=7)
    assert batches == [21] * 5


def test_band_coverage_of_a_known_gaussian_is_near_nominal():
    y = np.random.default_rng(0).standard_normal((4000, 5))
    for level, z in ((80, 1.2816), (95, 1.96)):
        band = band_metrics(y, np.full_like(y, -z), np.full_like(y, z))
        assert band["coverage"] == pytest.approx(level / 100, abs=0.01)
        assert band["width"] == pytest.approx(2 * z)
        assert len(band["coverage_per_step"]) == 5 and band["width_per_step"] == pytest.approx([2 * z] * 5)
    with pytest.raises(ValueError, match="lower bound lies above"):
        band_metrics(y, np.ones_like(y), np.zeros_like(y))


def test_monte_carlo_bands_of_the_true_noise_cover_near_nominal():
    series = make_series(rows=400)
    rng = np.random.default_rng(3)
    origins = np.arange(10, 390, 3)
    mc = monte_carlo(WindowSteps(linear_model), series, origins, 1, sigma=0.2, samples=500)
    truth = iterated(linear_model, series, origins, 1) + 0.2 * rng.standard_normal((len(origins), 1))
    coverage = mc.band_metrics(truth)
    assert coverage[95]["coverage"] == pytest.approx(0.95, abs=0.05)
    assert coverage[80]["coverage"] == pytest.approx(0.80, abs=0.08)


# ---------------------------------------------------------------- real runs (closed-form fits, tiny)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    store = RunStore(tmp_path_factory.mktemp("strategy_runs"))
    data = {"length": 400, "lookback": 20, "horizon": 5}
    arx = run_experiment(ExperimentSpec("sine", "arx", data, {"lag": 0, "ridge": 0.1}, epochs=1), store=store,
                         savedmodel=False)
    esn = run_experiment(ExperimentSpec("sine", "esn", data, {"units": 30}, epochs=1), store=store, savedmodel=False)
    return {"arx": arx, "esn": esn}


def run_parts(run):
    from seqlab.data import load_dataset

    data = load_dataset(run.spec["dataset"], **run.spec.get("data_options", {}))
    return run.load_model(), data, ForecastSeries.from_data(data)


def test_direct_equals_model_predict_on_a_real_run(runs):
    model, data, series = run_parts(runs["arx"])
    test = data.splits["test"]
    expected = model.predict(test.x, verbose=0)
    np.testing.assert_allclose(direct(keras_predict(model), series, test.origin), expected, rtol=1e-5, atol=1e-5)
    # Iterating the ARX's own one-step output: step 0 is the direct forecast's step 0.
    steps = iterated(keras_predict(model), series, test.origin[:4], 9)
    np.testing.assert_allclose(steps[:, 0], expected[:4, 0], rtol=1e-5, atol=1e-5)
    sigmas = lead_sigmas(keras_predict(model), data.splits["val"])
    val = data.splits["val"]
    assert sigmas.shape == (data.horizon,) and (sigmas > 0).all()
    np.testing.assert_allclose(sigmas[0], np.std(val.y[:, 0] - model.predict(val.x, verbose=0)[:, 0]), rtol=1e-4)


def test_monte_carlo_noise_follows_sigma_per_lead():
    """With a model that ignores its inputs, the spread at lead tau is sigma_tau alone."""
    series = make_series()
    constant = WindowSteps(lambda windows: np.zeros((len(windows), H)))
    mc = monte_carlo(constant, series, [20, 30], 5, sigma=np.array([0.1, 0.5, 1.0]), samples=4000)
    np.testing.assert_allclose(np.sqrt(mc.variance.mean(axis=0)), [0.1, 0.5, 1.0, 1.0, 1.0], rtol=0.05)
    np.testing.assert_array_equal(mc.sigma, [0.1, 0.5, 1.0, 1.0, 1.0])


def test_free_run_needs_a_reservoir_and_continues_its_state(runs):
    arx, _, arx_series = run_parts(runs["arx"])
    assert not can_free_run(arx)
    with pytest.raises(ValueError, match="cannot free-run; use the iterated strategy"):
        free_run(arx, arx_series, [100], 3)
    model, data, series = run_parts(runs["esn"])
    assert can_free_run(model)
    origins = data.splits["test"].origin[:3]
    closed = free_run(model, series, origins, 12)
    assert closed.shape == (3, 12) and np.isfinite(closed).all()
    # Step 0 reads the state at the end of the window: the model's own first output.
    np.testing.assert_allclose(closed[:, 0], model.predict(series.windows(origins), verbose=0)[:, 0], rtol=1e-4,
                               atol=1e-4)
    # Later steps continue the state instead of re-reading a shifted window from z_0 = 0.
    assert not np.allclose(closed[:, 1:], iterated(keras_predict(model), series, origins, 12)[:, 1:])


@pytest.fixture(scope="module")
def known_runs(tmp_path_factory):
    """ARX and ESN on energy given the next day's temperature and working day."""
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    store = RunStore(tmp_path_factory.mktemp("known_runs"))
    data = {"known_future": True}
    return {
        "arx": run_experiment(ExperimentSpec("energy", "arx", data, epochs=1), store=store, savedmodel=False),
        "esn": run_experiment(ExperimentSpec("energy", "esn", data, {"units": 20}, epochs=1), store=store,
                              savedmodel=False),
    }


def test_a_known_input_run_gets_the_actual_future_in_every_strategy(known_runs):
    model, data, series = run_parts(known_runs["arx"])
    assert series.known == ("Temperature", "WorkDay")
    test = data.splits["test"]
    origins = test.origin[:5]
    expected = model.predict([test.x[:5], test.future[:5]], verbose=0)
    predict = keras_predict(model)
    np.testing.assert_allclose(direct(predict, series, origins), expected, rtol=1e-5, atol=1e-4)
    steps = iterated(predict, series, origins, 60)  # longer than H = 48: the path is padded at the end
    np.testing.assert_allclose(steps[:, 0], expected[:, 0], rtol=1e-5, atol=1e-4)
    zero = direct(predict, series, origins, mode="zero")
    assert not np.allclose(zero, expected)


def test_free_run_is_offered_by_what_the_model_contains(runs, known_runs):
    from seqlab.forecasting.strategy_catalogue import available_strategies

    names = {key: [s.name for s in available_strategies(run.load_model())] for key, run in runs.items()}
    assert names["arx"] == ["direct", "iterated", "monte_carlo"]
    assert names["esn"] == ["direct", "iterated", "monte_carlo", "free_run", "monte_carlo_free_run"]
    # An ESN whose head also reads the known future cannot close its loop on the reservoir alone.
    assert not can_free_run(known_runs["esn"].load_model())


@pytest.mark.parametrize(
    "architecture, options",
    [("mlp", {"units": 4, "layers": 1}), ("narx", {"units": 4}), ("lstm", {"units": 4, "bidirectional": True}),
     ("gru", {"units": 4}), ("simple_rnn", {"units": 4})],
)
def test_every_window_architecture_iterates_and_simulates(tmp_path, architecture, options):
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    data_options = {"length": 200, "lookback": 12, "horizon": 3}
    spec = ExperimentSpec("sine", architecture, data_options, options, epochs=1, batch_size=64)
    model, data, series = run_parts(run_experiment(spec, store=RunStore(tmp_path), savedmodel=False))
    origins = data.splits["test"].origin[:2]
    predict = keras_predict(model)
    steps = iterated(predict, series, origins, 7)
    np.testing.assert_allclose(steps[:, 0], direct(predict, series, origins)[:, 0], rtol=1e-5, atol=1e-5)
    mc = monte_carlo(WindowSteps(predict), series, origins, 7, sigma=lead_sigmas(predict, data.splits["val"]),
                     samples=16)
    assert mc.samples.shape == (2, 16, 7) and np.isfinite(mc.samples).all()


def _never(window):
    raise AssertionError("the model was called before the check")


@pytest.mark.parametrize("samples", [0, 100_001, 10**9])
def test_samples_out_of_range_are_refused(samples):
    with pytest.raises(ValueError, match=r"samples must lie in \[1, 100000\], got"):
        simulate(WindowSteps(_never), make_series(), [10, 20], 3, sigma=0.1, samples=samples)


def test_paths_too_large_for_memory_are_refused_before_the_model_runs(monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_DATA_MB", "1")
    with pytest.raises(ValueError, match=r"^5,000 simulated futures of 3 steps from each of 2 origins would take "
                                         r"\d+ MB, more than 1 MB .*SEQLAB_MAX_DATA_MB.*fewer samples"):
        simulate(WindowSteps(_never), make_series(), [10, 20], 3, sigma=0.1, samples=5000)
