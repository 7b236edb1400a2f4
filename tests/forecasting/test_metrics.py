import json
import math

import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.forecasting import baseline_forecasts, forecast_metrics, main_season, mase_scale, per_step_metrics
from seqlab.forecasting.metrics import near_zero
from seqlab.run_meta import check_metrics
from seqlab.runs import json_safe
from seqlab.tasks.forecast import evaluate_forecast

Y = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, 2.0]])
F = np.array([[2.0, 0.0, 4.0], [3.0, 6.0, 1.0]])


def test_every_metric_against_hand_computed_numpy():
    e = np.abs(F - Y)  # [[1, 2, 0], [0, 1, 1]]
    m = forecast_metrics(Y, F, scale=2.0)
    assert m["mae"] == pytest.approx(5 / 6)
    assert m["rmse"] == pytest.approx(np.sqrt((1 + 4 + 0 + 0 + 1 + 1) / 6))
    assert m["mape"] == pytest.approx(100 * (1 / 1 + 2 / 2 + 0 + 0 + 1 / 5 + 1 / 2) / 6)
    assert m["smape"] == pytest.approx(200 * (1 / 3 + 2 / 2 + 0 + 0 + 1 / 11 + 1 / 3) / 6)
    assert m["mase"] == pytest.approx(e.mean() / 2.0)
    steps = per_step_metrics(Y, F, scale=2.0)
    assert steps["mae"] == pytest.approx([0.5, 1.5, 0.5])
    assert steps["rmse"] == pytest.approx([np.sqrt(0.5), np.sqrt(2.5), np.sqrt(0.5)])
    assert steps["mase"] == pytest.approx([0.25, 0.75, 0.25])
    for key in ("mae", "mape", "smape", "mase"):  # equal windows per step: the steps average to the whole
        assert np.mean(steps[key]) == pytest.approx(m[key])


def test_smape_counts_an_exact_zero_forecast_of_zero_as_no_error():
    assert forecast_metrics(np.array([[0.0, 2.0]]), np.array([[0.0, 2.0]]))["smape"] == 0


def test_mape_left_out_where_the_target_reaches_zero_and_mase_without_a_scale():
    for truth in ([[1.0, 0.0]], [[1.0, -2.0]]):
        m = forecast_metrics(np.array(truth), np.ones((1, 2)))
        assert "mape" not in m and "mape" not in per_step_metrics(np.array(truth), np.ones((1, 2)))
        assert "mase" not in m and math.isfinite(m["smape"])


def test_mape_only_where_the_truth_stays_away_from_zero():
    # Mackey-Glass is squashed around zero: a percentage of its truth means nothing.
    crossing = load_dataset("mackey_glass").splits["test"].y
    assert near_zero(crossing) and "mape" not in forecast_metrics(crossing, crossing + 0.01)
    # Positive, but one value a twentieth of the mean: dividing by it would swamp the rest.
    assert near_zero(np.array([[10.0, 10.0, 0.5]])) and not near_zero(np.array([[10.0, 8.0, 5.0]]))
    positive = load_dataset("energy").splits["test"].y  # demand in GW, well above zero
    assert not near_zero(positive)
    assert forecast_metrics(positive, positive * 1.1)["mape"] == pytest.approx(10.0)


def test_mase_scale_is_the_in_sample_seasonal_naive_error():
    # m = 2: |2-1|, |4-3|, |3-2|, |6-4| -> (1 + 1 + 1 + 2) / 4
    assert mase_scale(np.array([1.0, 3.0, 2.0, 4.0, 3.0, 6.0]), 2) == pytest.approx(1.25)
    assert math.isnan(mase_scale(np.full(10, 3.0), 2))  # constant: no scale
    assert math.isnan(mase_scale(np.arange(3.0), 5))  # shorter than a season
    assert main_season({"day": 48, "week": 336}) == 48 and main_season({}) == 1


def test_mase_of_the_seasonal_naive_itself_is_one_on_a_noisy_periodic_series():
    m, horizon = 24, 12
    rng = np.random.default_rng(0)
    series = 10 + np.sin(2 * np.pi * np.arange(40_000) / m) + rng.normal(0, 0.3, 40_000)
    scale = mase_scale(series[:20_000], m)
    origins = np.arange(20_000, 40_000 - horizon, 5)
    truth = series[origins[:, None] + np.arange(horizon)]
    seasonal = baseline_forecasts(series, origins, horizon, {"day": m})["seasonal_naive_day"]
    mase = forecast_metrics(truth, seasonal, scale=scale)["mase"]
    assert mase == pytest.approx(1.0, abs=0.03)  # same noise in and out of sample: equal errors


def test_sine_run_metrics_leave_out_mape_and_store_strict_per_step_arrays():
    data = load_dataset("sine")
    test = data.splits["test"]
    assert (test.y <= 0).any()  # the sine crosses zero
    metrics = evaluate_forecast(data, test.y + 0.1).metrics
    assert "mape" not in metrics["model"] and {"mae", "rmse", "smape", "mase"} <= set(metrics["model"])
    assert set(metrics["per_step"]["baselines"]) == set(metrics["baselines"])
    for scores, steps in [(metrics["model"], metrics["per_step"]["model"]),
                          *[(metrics["baselines"][n], s) for n, s in metrics["per_step"]["baselines"].items()]]:
        assert all(len(values) == data.horizon for values in steps.values())
        assert np.mean(steps["mae"]) == pytest.approx(scores["mae"])
    assert metrics["model"]["mae"] == pytest.approx(0.1)
    # Written with allow_nan=False, read back through the run store's check.
    check_metrics(json.loads(json.dumps(json_safe(metrics), allow_nan=False)))


def test_check_metrics_takes_old_files_and_refuses_bad_per_step():
    old = {"model": {"mae": 0.3, "mape": 7.0, "rmse": 0.4}, "baselines": {"naive": {"mae": 0.6}}}
    assert check_metrics(old) == old
    with pytest.raises(ValueError, match="lists of numbers"):
        check_metrics({**old, "per_step": {"model": {"mae": 0.3}, "baselines": {}}})
    with pytest.raises(ValueError, match="exactly the keys"):
        check_metrics({**old, "per_step": {"model": {"mae": [0.3]}}})
