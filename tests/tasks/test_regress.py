import numpy as np
import pytest

from seqlab.data.sample_source import Samples, split_samples
from seqlab.tasks import get_task
from seqlab.tasks.regress import regression_metrics


def test_metrics_by_hand():
    m = regression_metrics(np.array([[0.0], [1.0], [2.0]]), np.array([[0.0], [2.0], [0.0]]))
    assert m == pytest.approx({"mse": 5 / 3, "rmse": np.sqrt(5 / 3), "mae": 1.0})
    with pytest.raises(ValueError, match="shape"):
        regression_metrics(np.zeros((3, 1)), np.zeros(3))


def test_evaluation_against_the_training_mean():
    y = np.array([[1.0], [3.0], [5.0], [7.0], [9.0], [11.0], [13.0], [15.0], [0.0], [4.0]])
    data = split_samples("toy", "regress", Samples(np.zeros((10, 2, 1)), y, ("x",), "t"), {}, False, 0.2, 0.2, {})
    evaluation = get_task("regress").evaluate(data, np.array([[1.0], [4.0]]))
    # Train targets 1, 3, ..., 11 have mean 6; test targets are 0 and 4.
    assert evaluation.metrics["baselines"]["mean"]["mse"] == pytest.approx((36 + 4) / 2)
    assert evaluation.metrics["model"]["mae"] == pytest.approx(0.5)
    assert set(evaluation.predictions) == {"y_true", "y_pred", "origin", "baseline_mean"}
    np.testing.assert_array_equal(evaluation.predictions["origin"], [8, 9])
