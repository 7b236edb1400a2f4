import math

import numpy as np
import pytest

from seqlab.forecasting import forecast_metrics
from seqlab.tasks import get_metric, get_task, ordered_metrics
from seqlab.tasks.classify import class_metrics
from seqlab.tasks.metrics import squared_unit
from seqlab.tasks.regress import regression_metrics


def test_labels_units_and_display_values():
    assert get_metric("mae").label("GW") == "MAE (GW)"
    assert get_metric("mse").label("GW") == "MSE (GW²)" and get_metric("mse").label("m/s") == "MSE ((m/s)²)"
    assert get_metric("accuracy").label("GW") == "accuracy (%)" and get_metric("accuracy").display(0.931) == pytest.approx(93.1)
    assert get_metric("cross_entropy").label() == "cross-entropy (nats)"
    assert get_metric("mae").label("") == "MAE" and squared_unit("") == ""
    assert math.isnan(get_metric("mae").display(None)) and math.isnan(get_metric("accuracy").display(float("inf")))
    assert get_metric("accuracy").higher_is_better and not get_metric("mape").higher_is_better
    assert get_metric("f1_score").label("GW") == "f1 score"  # unknown: its key, no unit
    assert get_metric("smape").label("GW") == "sMAPE (%)" and get_metric("mase").label("GW") == "MASE"
    assert not get_metric("smape").higher_is_better and not get_metric("mase").higher_is_better


@pytest.mark.parametrize(
    "task, reported",
    [
        ("forecast", forecast_metrics(np.ones((4, 2)), np.zeros((4, 2)), scale=1.0)),
        ("regress", regression_metrics(np.ones((4, 2)), np.zeros((4, 2)))),
        ("classify", class_metrics(np.array([0, 1]), np.array([[0.9, 0.1], [0.2, 0.8]]))),
        ("label", class_metrics(np.array([[0, 1]]), np.array([[[0.9, 0.1], [0.2, 0.8]]]))),
    ],
)
def test_every_task_declares_exactly_the_metrics_it_reports(task, reported):
    declared = [m.key for m in get_task(task).test_metrics]
    assert sorted(declared) == sorted(reported)
    assert ordered_metrics(sorted(reported), task) == declared  # the first is the headline


def test_headline_metric_per_task_and_order_without_a_task():
    assert [ordered_metrics(["mae", "mape", "mse", "rmse"], t)[0] for t in ("forecast", "regress")] == ["mae", "mse"]
    assert ordered_metrics(["cross_entropy", "accuracy"], "label")[0] == "accuracy"
    assert ordered_metrics(["zeta", "mse", "accuracy"]) == ["accuracy", "mse", "zeta"]


@pytest.mark.parametrize("task", ["forecast", "regress", "classify", "label", "language", "translate", "masked_lm"])
def test_every_tasks_own_metric_reads_with_its_direction_and_unit(task):
    for metric in get_task(task).test_metrics:
        assert get_metric(metric.key) == metric  # not the unknown-key fallback (lower is better, no unit)


def test_skill_of_a_higher_is_better_task_metric_is_a_gain_in_points():
    from seqlab.app.format import skill

    # BERT's masked-word accuracy 0.095 against the unigram's 0.058: a gain of 3.7 points, not -64 %.
    metrics = {"model": {"mlm_accuracy": 0.095}, "baselines": {"unigram": {"mlm_accuracy": 0.058}}}
    assert skill(metrics, task="masked_lm") == pytest.approx(3.7)
    assert get_metric("mlm_accuracy").display(0.095) == pytest.approx(9.5)
