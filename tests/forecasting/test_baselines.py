import numpy as np
import pytest

from seqlab.forecasting import baseline_forecasts, forecast_metrics
from seqlab.forecasting.baselines import seasonal_naive_forecast


def test_naive_repeats_the_last_observation():
    series = np.arange(10.0)
    forecasts = baseline_forecasts(series, np.array([5, 7]), horizon=2, seasons={})
    np.testing.assert_array_equal(forecasts["naive"], [[4, 4], [6, 6]])


def test_seasonal_naive_uses_one_season_back_and_never_the_future():
    series = np.arange(100.0)
    f = seasonal_naive_forecast(series, np.array([50]), horizon=7, season=3)
    # h = 0,1,2 -> rows 47,48,49; h = 3,4,5 -> two seasons back: 47,48,49; h = 6 -> 47
    np.testing.assert_array_equal(f[0], [47, 48, 49, 47, 48, 49, 47])
    assert f.max() < 50


def test_seasonal_naive_is_exact_on_a_periodic_series():
    series = np.tile(np.arange(4.0), 30)
    origins = np.arange(10, 100, 7)
    f = baseline_forecasts(series, origins, horizon=6, seasons={"p": 4})["seasonal_naive_p"]
    truth = series[origins[:, None] + np.arange(6)]
    assert forecast_metrics(truth, f)["mae"] == 0


def test_seasonal_baseline_dropped_without_history():
    assert "seasonal_naive_week" not in baseline_forecasts(np.arange(10.0), np.array([3]), 2, {"week": 7})


def test_metrics_against_hand_computed_values():
    m = forecast_metrics(np.array([[1.0, 2.0]]), np.array([[2.0, 0.0]]))
    assert m["mae"] == pytest.approx(1.5)
    assert m["rmse"] == pytest.approx(np.sqrt(2.5))
    assert m["mape"] == pytest.approx((100 + 100) / 2)
    with pytest.raises(ValueError, match="shape"):
        forecast_metrics(np.zeros(3), np.zeros(4))
