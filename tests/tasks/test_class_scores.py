import warnings

import numpy as np
import pytest
from sklearn import metrics as sk

from seqlab.tasks.class_scores import accuracy, confusion_matrix, macro_f1, per_class_scores, real_steps


@pytest.mark.parametrize("seed", range(5))
def test_scores_match_scikit_learn_on_random_labels(seed):
    rng = np.random.default_rng(seed)
    classes = int(rng.integers(2, 7))
    y_true = rng.integers(0, classes, 200)
    y_pred = np.where(rng.random(200) < 0.6, y_true, rng.integers(0, classes, 200))
    confusion = confusion_matrix(y_true, y_pred, classes)
    labels = np.arange(classes)
    np.testing.assert_array_equal(confusion, sk.confusion_matrix(y_true, y_pred, labels=labels))
    precision, recall, f1, support = sk.precision_recall_fscore_support(y_true, y_pred, labels=labels, zero_division=0)
    scores = per_class_scores(confusion)
    for ours, theirs in ((scores["precision"], precision), (scores["recall"], recall), (scores["f1"], f1),
                         (scores["support"], support)):
        np.testing.assert_allclose(ours, theirs)
    assert macro_f1(confusion) == pytest.approx(sk.f1_score(y_true, y_pred, average="macro"))
    assert accuracy(confusion) == pytest.approx(sk.accuracy_score(y_true, y_pred))


def test_a_class_never_predicted_scores_zero_without_a_warning():
    y_true = np.array([0, 0, 1, 1, 2, 2])
    y_pred = np.array([0, 0, 1, 1, 1, 0])  # class 2 never predicted
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        confusion = confusion_matrix(y_true, y_pred, 3)
        scores = per_class_scores(confusion)
        ours = macro_f1(confusion)
    assert scores["precision"][2] == 0 and scores["recall"][2] == 0 and scores["f1"][2] == 0
    assert ours == pytest.approx(sk.f1_score(y_true, y_pred, average="macro", zero_division=0))
    assert confusion[2].tolist() == [1, 1, 0]  # rows are the true classes


def test_a_class_that_never_occurs_is_left_out_of_the_macro_average():
    confusion = confusion_matrix([0, 1, 1], [0, 1, 0], classes=4)  # classes 2 and 3: neither true nor predicted
    assert macro_f1(confusion) == pytest.approx(sk.f1_score([0, 1, 1], [0, 1, 0], average="macro"))


def test_masked_steps_are_left_out():
    rng = np.random.default_rng(7)
    y_true, y_pred = rng.integers(0, 3, (20, 9)), rng.integers(0, 3, (20, 9))
    mask = np.arange(9) < rng.integers(1, 10, (20, 1))  # each tagged sentence padded after its length
    y_true_padded = np.where(mask, y_true, 0)  # the padding's tag 0, predicted anything
    confusion = confusion_matrix(y_true_padded, y_pred, 3, mask=mask)
    assert confusion.sum() == mask.sum()
    np.testing.assert_array_equal(confusion, sk.confusion_matrix(y_true[mask], y_pred[mask], labels=[0, 1, 2]))
    assert accuracy(confusion) == pytest.approx(np.mean(y_true[mask] == y_pred[mask]))
    assert macro_f1(confusion) == pytest.approx(sk.f1_score(y_true[mask], y_pred[mask], average="macro"))
    assert not np.array_equal(confusion, confusion_matrix(y_true_padded, y_pred, 3))  # the padding would count


def test_no_step_gives_nan_and_bad_input_is_refused():
    empty = confusion_matrix(np.zeros((2, 3)), np.zeros((2, 3)), 2, mask=np.zeros((2, 3), bool))
    assert empty.sum() == 0 and np.isnan(macro_f1(empty)) and np.isnan(accuracy(empty))
    with pytest.raises(ValueError, match="shape"):
        real_steps([0, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="mask"):
        real_steps([0, 1], [0, 1], mask=[True])
    with pytest.raises(ValueError, match="outside 0..1"):
        confusion_matrix([0, 2], [0, 1], classes=2)
