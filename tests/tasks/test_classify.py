import numpy as np
import pytest

from seqlab.data.sample_source import Samples, split_samples
from seqlab.tasks import get_task
from seqlab.tasks.classify import class_frequencies, class_metrics


def test_metrics_by_hand():
    p = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.5, 0.4, 0.1], [0.0, 0.0, 1.0]])
    m = class_metrics(np.array([0, 1, 1, 0]), p)
    assert m["accuracy"] == pytest.approx(0.5)
    # A zero probability is clipped at 1e-7, as Keras does.
    assert m["cross_entropy"] == pytest.approx(-(np.log(0.7) + np.log(0.8) + np.log(0.4) + np.log(1e-7)) / 4)
    np.testing.assert_allclose(class_frequencies(np.array([2, 2, 0, 2]), 3), [0.25, 0, 0.75])


def test_evaluation_against_the_majority_class():
    y = np.array([1, 1, 1, 0, 2, 1, 0, 0, 1, 2])
    data = split_samples(
        "toy", "classify", Samples(np.zeros((10, 2, 1)), y, ("x",), "t", ("a", "b", "c")), {}, False, 0.2, 0.2, {}
    )
    probabilities = np.array([[0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])  # test labels: 1, 2
    evaluation = get_task("classify").evaluate(data, probabilities)
    assert evaluation.metrics["model"]["accuracy"] == 1.0
    # Train labels 1,1,1,0,2,1: prior (1/6, 4/6, 1/6), argmax 1.
    majority = evaluation.metrics["baselines"]["majority"]
    assert majority["accuracy"] == 0.5
    assert majority["cross_entropy"] == pytest.approx(-(np.log(4 / 6) + np.log(1 / 6)) / 2)
    # Majority says 1 for both: F1 2/3 on class 1 (P 1/2, R 1), 0 on class 2 (never predicted); class 0 absent.
    assert majority["macro_f1"] == pytest.approx(1 / 3) and evaluation.metrics["model"]["macro_f1"] == 1.0
    assert evaluation.metrics["confusion"]["baselines"]["majority"] == [[0, 0, 0], [0, 1, 0], [0, 1, 0]]
    assert evaluation.metrics["per_class"]["baselines"]["majority"]["f1"] == pytest.approx([0, 2 / 3, 0])
    np.testing.assert_array_equal(evaluation.predictions["y_pred"], [1, 2])
    np.testing.assert_array_equal(evaluation.predictions["baseline_majority"], [1, 1])
