r"""Classify: a sequence -> one class (many-to-one), e.g. a digit read row by row.

Head: ``Dense(C, softmax)`` on the body's last state; sparse categorical
cross-entropy. Judged by accuracy and cross-entropy (nats) against the
majority class, whose probabilities are the training class frequencies:

$$ \mathrm{CE} = -\frac{1}{N} \sum_n \log p_n(y_n) $$
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from seqlab.data.sequence_data import SequenceData, Split
from seqlab.tasks.metrics import ACCURACY, CROSS_ENTROPY
from seqlab.tasks.task import Evaluation, Task, against_baselines, register_task

if TYPE_CHECKING:
    import keras

EPSILON = 1e-7  # probabilities are clipped before the log, as Keras's cross-entropy does


def class_head(data: SequenceData, features: keras.KerasTensor) -> keras.KerasTensor:
    """Class probabilities ``(B, C)``, or ``(B, T, C)`` on every step of a sequence."""
    import keras

    return keras.layers.Dense(len(data.classes), activation="softmax", name="classes")(features)


def class_metrics(y_true: np.ndarray, probabilities: np.ndarray) -> dict[str, float]:
    """Accuracy and mean cross-entropy of probabilities ``(..., C)`` for class ids ``(...)``."""
    if probabilities.shape[:-1] != np.shape(y_true):
        raise ValueError(f"y_true has shape {np.shape(y_true)} but the probabilities {probabilities.shape}.")
    p = np.asarray(probabilities, dtype="float64").reshape(-1, probabilities.shape[-1])  # (N, C)
    y = np.asarray(y_true).reshape(-1).astype(int)  # (N,)
    p_true = np.clip(p[np.arange(len(y)), y], EPSILON, 1.0)
    return {
        "accuracy": float(np.mean(p.argmax(axis=1) == y)),
        "cross_entropy": float(-np.mean(np.log(p_true))),
    }


def class_frequencies(y: np.ndarray, classes: int) -> np.ndarray:
    """Relative frequency of every class over the last axis of ``y``'s ids: ``(..., C)``."""
    one_hot = np.eye(classes)[np.asarray(y, dtype=int)]  # (..., C)
    return one_hot.reshape(-1, classes).mean(axis=0)


def class_evaluation(test: Split, probabilities: np.ndarray, baselines: dict[str, np.ndarray]) -> Evaluation:
    """Class probabilities of the model and of each baseline (same shape) judged on the test split.

    The predictions keep the model's ``probabilities``; ``y_pred`` and every
    ``baseline_<name>`` are the most probable classes.
    """
    predictions = {
        "y_true": test.y,
        "y_pred": probabilities.argmax(axis=-1),
        "probabilities": probabilities,
        "origin": test.origin,
        **{f"baseline_{name}": p.argmax(axis=-1) for name, p in baselines.items()},
    }
    return Evaluation(against_baselines(class_metrics, test.y, probabilities, baselines), predictions)


def evaluate_classification(data: SequenceData, probabilities: np.ndarray) -> Evaluation:
    prior = class_frequencies(data.splits["train"].y, len(data.classes))  # (C,)
    majority = np.broadcast_to(prior, probabilities.shape)
    return class_evaluation(data.splits["test"], probabilities, {"majority": majority})


CLASSIFY = register_task(
    Task(
        name="classify",
        sequence_outputs=False,
        loss="sparse_categorical_crossentropy",
        metrics=("accuracy",),
        head=class_head,
        evaluate=evaluate_classification,
        test_metrics=(ACCURACY, CROSS_ENTROPY),
        outputs=lambda meta: (len(meta.classes or ()),),
        baselines="The majority baseline always predicts the most frequent training class.",
    )
)
