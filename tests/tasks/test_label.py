import numpy as np
import pytest

from seqlab.data.sample_source import Samples, split_samples
from seqlab.data.sequence_data import Split
from seqlab.run_meta import check_metrics
from seqlab.tasks.classify import class_evaluation
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


def test_the_padding_of_tagged_sentences_is_left_out_of_every_score():
    y = np.array([[1, 2, 0], [2, 0, 0]])  # tags of two sentences, 0 on their padding
    mask = np.array([[True, True, False], [True, False, False]])
    right = np.eye(3)[[[1, 2, 2], [2, 1, 1]]]  # right on every word, wrong on every pad step
    test = Split(np.zeros((2, 3), "int32"), y, np.arange(2), mask=mask)
    evaluation = class_evaluation(test, right, {}, mask=mask)
    assert evaluation.metrics["model"]["accuracy"] == 1.0 and evaluation.metrics["model"]["macro_f1"] == 1.0
    assert np.sum(evaluation.metrics["confusion"]["model"]) == 3
    assert evaluation.metrics["per_class"]["model"]["support"] == [0, 1, 2]
    check_metrics(evaluation.metrics)  # what run_experiment writes, read back
