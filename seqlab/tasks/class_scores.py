r"""Scores of predicted classes: the confusion matrix, precision, recall and F1 per class, macro F1.

Pure NumPy. Everything follows from the confusion matrix $N$ of the real
steps (a mask leaves out a tagged sentence's padding), whose rows are the
true classes and whose columns the predicted ones: $N_{ij}$ counts the steps
of class $i$ predicted as $j$. For class $c$, $TP_c = N_{cc}$,
$FP_c = \sum_{i \ne c} N_{ic}$ (predicted $c$, wrongly), $FN_c = \sum_{j \ne c} N_{cj}$ (missed):

$$ P_c = \frac{TP_c}{TP_c + FP_c}, \qquad R_c = \frac{TP_c}{TP_c + FN_c}, \qquad
   F_{1,c} = \frac{2 P_c R_c}{P_c + R_c} = \frac{2\,TP_c}{2\,TP_c + FP_c + FN_c} $$

A ratio whose denominator is 0 (a class never predicted has no precision) is
0, without a warning. Macro F1 averages $F_{1,c}$ over the $C'$ classes that
occur, as truth or as prediction, so that a rare class counts as much as a
frequent one (a majority-class guess scores $F_1 = 0$ on every other class):

$$ F_1^{\text{macro}} = \frac{1}{C'} \sum_{c \,:\, TP_c + FP_c + FN_c > 0} F_{1,c},
   \qquad \text{accuracy} = \frac{\sum_c N_{cc}}{\sum_{ij} N_{ij}} $$

These agree with scikit-learn's ``confusion_matrix``, ``f1_score(average="macro")``
and ``precision_recall_fscore_support(zero_division=0)``.
"""

from __future__ import annotations

import numpy as np


def real_steps(y_true, y_pred, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Class ids of ``y_true`` and ``y_pred`` (same shape) at the steps where ``mask`` is True, flattened."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true has shape {y_true.shape} but y_pred {y_pred.shape}: give one class id per step.")
    if mask is None:
        return y_true.reshape(-1).astype(int), y_pred.reshape(-1).astype(int)
    mask = np.asarray(mask, dtype=bool)
    if mask.shape != y_true.shape:
        raise ValueError(f"mask has shape {mask.shape} but the class ids {y_true.shape}: give one flag per step.")
    return y_true[mask].astype(int), y_pred[mask].astype(int)


def confusion_matrix(y_true, y_pred, classes: int, mask=None) -> np.ndarray:
    """``(C, C)`` counts: row = true class, column = predicted class, over the real steps."""
    truth, predicted = real_steps(y_true, y_pred, mask)
    for name, ids in (("y_true", truth), ("y_pred", predicted)):
        if ids.size and (ids.min() < 0 or ids.max() >= classes):
            raise ValueError(f"{name} holds class ids outside 0..{classes - 1}: the classes do not match the data.")
    return np.bincount(truth * classes + predicted, minlength=classes * classes).reshape(classes, classes)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator``, 0 where the denominator is 0."""
    return np.divide(numerator, denominator, out=np.zeros(len(numerator)), where=denominator > 0)


def per_class_scores(confusion: np.ndarray) -> dict[str, np.ndarray]:
    """``precision``, ``recall``, ``f1`` and ``support`` (true count) of every class, each ``(C,)``."""
    confusion = np.asarray(confusion, dtype=float)
    tp = np.diag(confusion)
    predicted, support = confusion.sum(axis=0), confusion.sum(axis=1)  # TP + FP, TP + FN
    return {
        "precision": _ratio(tp, predicted),
        "recall": _ratio(tp, support),
        "f1": _ratio(2 * tp, predicted + support),
        "support": support,
    }


def macro_f1(confusion: np.ndarray) -> float:
    """The mean F1 over the classes that occur as truth or prediction; NaN without a step."""
    confusion = np.asarray(confusion, dtype=float)
    occurs = (confusion.sum(axis=0) + confusion.sum(axis=1)) > 0
    return float(per_class_scores(confusion)["f1"][occurs].mean()) if occurs.any() else float("nan")


def accuracy(confusion: np.ndarray) -> float:
    """The share of real steps predicted right (a tagger's token accuracy); NaN without a step."""
    total = np.sum(confusion)
    return float(np.trace(confusion) / total) if total else float("nan")
