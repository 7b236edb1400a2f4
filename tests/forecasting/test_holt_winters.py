import warnings

import numpy as np
import pytest
from statsmodels.tsa.holtwinters import ExponentialSmoothing

from seqlab.forecasting import baseline_forecasts, forecast_metrics
from seqlab.forecasting.holt_winters import FIT_ROWS, fit_holt_winters, holt_winters_forecast, smooth

M = 7


def seasonal_series(n=400, seed=1):
    """A trend and a season whose amplitude drifts: statsmodels then fits gamma > 0."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    amplitude = 3 + np.cumsum(rng.normal(0, 0.2, n))
    return 10 + 0.02 * t + amplitude * np.sin(2 * np.pi * t / M) + rng.normal(0, 0.3, n)


def statsmodels_fit(train, damped, seasonal=True):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ExponentialSmoothing(
            train, trend="add", damped_trend=damped, seasonal="add" if seasonal else None,
            seasonal_periods=M if seasonal else None, initialization_method="estimated",
        ).fit()


@pytest.mark.parametrize("damped", [True, False])
def test_recursion_equals_statsmodels_at_the_end_of_the_training_rows(damped):
    y, train_end, horizon = seasonal_series(), 300, 2 * M + 3
    fit = statsmodels_fit(y[:train_end], damped)
    assert fit.params["smoothing_seasonal"] > 0.05  # the season really updates
    model = fit_holt_winters(y, train_end, M, damped)
    level, trend, seasons = smooth(model, y[:train_end])
    np.testing.assert_allclose(level[1:], fit.level, atol=1e-8)
    np.testing.assert_allclose(trend[1:], fit.trend, atol=1e-8)
    np.testing.assert_allclose(seasons[M:], fit.season, atol=1e-8)

    ours = holt_winters_forecast(y, np.array([train_end]), horizon, M, train_end, damped)[0]
    theirs = fit.forecast(horizon)
    h = np.arange(1, horizon + 1)
    off_cycle = h % M != 0
    np.testing.assert_allclose(ours[off_cycle], theirs[off_cycle], atol=1e-8)
    # At h = M, 2M, ... statsmodels 0.15 reuses a season one cycle old (its issue #9538);
    # the textbook forecast takes the latest season, here from statsmodels' own states.
    phi = fit.params["damping_trend"] if damped else 1.0
    latest = fit.level[-1] + np.cumsum(phi**h) * fit.trend[-1] + fit.season[-1]
    np.testing.assert_allclose(ours[~off_cycle], latest[~off_cycle], atol=1e-8)


def test_holt_without_a_season_equals_statsmodels():
    y = np.cumsum(np.random.default_rng(0).normal(0.1, 1.0, 200))
    fit = statsmodels_fit(y[:150], damped=True, seasonal=False)
    ours = holt_winters_forecast(y, np.array([150]), 5, season=1, train_end=150)
    np.testing.assert_allclose(ours[0], fit.forecast(5), atol=1e-8)


def test_the_forecast_at_an_origin_never_sees_the_rows_from_it_on():
    y, train_end = seasonal_series(), 300
    origins = np.array([310, 330, 350])
    before = holt_winters_forecast(y, origins, 10, M, train_end)
    for o in (310, 340):  # between origins: the later ones must see the change
        changed = y.copy()
        changed[o:] += 100.0 * np.random.default_rng(int(o)).standard_normal(len(y) - o)
        after = holt_winters_forecast(changed, origins, 10, M, train_end)
        rows = origins <= o  # these origins saw nothing of the change
        np.testing.assert_array_equal(after[rows], before[rows])
        assert not np.allclose(after[~rows], before[~rows])


def test_it_beats_the_naive_forecast_on_a_trending_seasonal_series():
    y, train_end = seasonal_series(seed=3), 300
    origins = np.arange(train_end, 390, 5)
    truth = y[origins[:, None] + np.arange(M)]
    forecasts = baseline_forecasts(y, origins, M, {"week": M}, train_end=train_end)
    errors = {name: forecast_metrics(truth, f)["mae"] for name, f in forecasts.items()}
    assert errors["holt_winters"] < errors["naive"]


def test_baselines_leave_holt_winters_out_without_the_training_end():
    y = seasonal_series()
    assert "holt_winters" not in baseline_forecasts(y, np.array([320]), 3, {"week": M})
    assert "holt_winters" in baseline_forecasts(y, np.array([320]), 3, {"week": M}, train_end=300)


def test_short_series_fall_back_to_holt_then_to_nothing():
    y = seasonal_series(40)
    # 12 training rows: under two full seasons, so Holt's method without a season.
    assert len(fit_holt_winters(y, 12, M).seasons) == 0
    assert holt_winters_forecast(y, np.array([12, 20]), 4, M, 12).shape == (2, 4)
    assert fit_holt_winters(y, 5, M) is None  # too few rows for any parameters
    assert "holt_winters" not in baseline_forecasts(y, np.array([5]), 3, {"week": M}, train_end=5)


def test_long_training_sets_fit_on_their_last_rows_and_earlier_origins_get_none():
    y = np.tile(seasonal_series(M * 50), 10)[: FIT_ROWS + 500]
    model = fit_holt_winters(y, FIT_ROWS + 400, M)
    assert model.start == 400
    assert holt_winters_forecast(y, np.array([399, FIT_ROWS + 450]), 3, M, FIT_ROWS + 400) is None
