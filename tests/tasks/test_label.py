import numpy as np
import pytest

from seqlab.data.sample_source import Samples, split_samples
from seqlab.tasks import get_task


def test_per_step_metrics_and_the_memoryless_baseline():
    # Two steps; class 0 always at t = 0, at t = 1 class 1 (3 of 6 training samples) or 2.
    y = np.array([[0, 1], [0, 1], [0, 2], [0, 1], [0, 2], [0, 2], [0, 1], [0, 2], [0, 1], [0, 2]])
    data = split_samples(
        "toy", "label", Samples(np.zeros((10, 2, 1)), y, ("x",), "t", ("_", "a", "b")), {}, False, 0.2, 0.2, {}
    )
    assert data.horizon == 2
    p = np.array([[[0.9, 0.05, 0.05], [0.1, 0.1, 0.8]], [[0.9, 0.05, 0.05], [0.1, 0.1, 0.8]]])  # test: [0,1],[0,2]
    evaluation = get_task("label").evaluate(data, p)
    assert evaluation.metrics["model"]["accuracy"] == pytest.approx(3 / 4)
    assert evaluation.metrics["model"]["cross_entropy"] == pytest.approx(-(2 * np.log(0.9) + np.log(0.1) + np.log(0.8)) / 4)
    # Over all steps the blank is the majority (6 of 12): right at t = 0 only.
    assert evaluation.metrics["baselines"]["majority"]["accuracy"] == pytest.approx(0.5)
    # By position: t = 0 is blank for sure; t = 1 is a or b with probability 1/2 each.
    memoryless = evaluation.metrics["baselines"]["memoryless"]
    assert memoryless["cross_entropy"] == pytest.approx(-(2 * np.log(1 - 0) + 2 * np.log(0.5)) / 4)
    assert evaluation.predictions["baseline_memoryless"].shape == (2, 2)
    assert evaluation.predictions["probabilities"].shape == (2, 2, 3)
