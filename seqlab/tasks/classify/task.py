r"""Classify: a sequence -> one class (many-to-one), e.g. a digit read row by row, or a sentence's sentiment.

A sequence of numbers is scaled inside the model; a text is token ids,
embedded inside the model with its padding masked (``seqlab.tasks.text_inputs``).

Head: ``Dense(C, softmax)`` on the body's last state; sparse categorical
cross-entropy. Judged by accuracy, cross-entropy (nats) and macro F1
(``seqlab.tasks.class_scores``) against the majority class, whose
probabilities are the training class frequencies:

$$ \mathrm{CE} = -\frac{1}{N} \sum_n \log p_n(y_n) $$

``metrics.json`` adds, for the model and every baseline, ``per_class``
(precision, recall, F1 and support, one number per class) and ``confusion``
(the confusion matrix, rows = true classes).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from seqlab.data.sequence_data import SequenceData, Split
from seqlab.tasks.class_scores import accuracy, confusion_matrix, macro_f1, per_class_scores
from seqlab.tasks.classify.answers import class_answers
from seqlab.tasks.metrics import ACCURACY, CROSS_ENTROPY, MACRO_F1
from seqlab.tasks.task import Evaluation, Task, TextEndpoint, against_baselines, register_task
from seqlab.tasks.text_inputs import load_sequence_assets, save_sequence_assets, sequence_inputs, sequence_preprocessor
from seqlab.tasks.text_serving import TEXT_ENDPOINT, export_sequence

if TYPE_CHECKING:
    import keras

EPSILON = 1e-7  # probabilities are clipped before the log, as Keras's cross-entropy does


def class_head(data: SequenceData, features: keras.KerasTensor) -> keras.KerasTensor:
    """Class probabilities ``(B, C)``, or ``(B, T, C)`` on every step of a sequence."""
    import keras

    return keras.layers.Dense(len(data.classes), activation="softmax", name="classes")(features)


def _real(y_true: np.ndarray, probabilities: np.ndarray, mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Class ids ``(N,)`` and probabilities ``(N, C)`` of the real steps (``mask`` True; all without one)."""
    if probabilities.shape[:-1] != np.shape(y_true):
        raise ValueError(f"y_true has shape {np.shape(y_true)} but the probabilities {probabilities.shape}.")
    real = np.ones(np.shape(y_true), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    return np.asarray(y_true)[real].astype(int), np.asarray(probabilities, dtype="float64")[real]


def class_metrics(y_true: np.ndarray, probabilities: np.ndarray, mask: np.ndarray | None = None) -> dict[str, float]:
    """Accuracy, mean cross-entropy and macro F1 of probabilities ``(..., C)`` for class ids ``(...)``.

    Only the steps where ``mask`` (shaped like ``y_true``) is True count: a
    tagged sentence's padding does not.
    """
    y, p = _real(y_true, probabilities, mask)  # (N,), (N, C)
    p_true = np.clip(p[np.arange(len(y)), y], EPSILON, 1.0)
    confusion = class_confusion(y_true, probabilities, mask)
    return {
        "accuracy": accuracy(confusion),
        "cross_entropy": float(-np.mean(np.log(p_true))),
        "macro_f1": macro_f1(confusion),
    }


def class_confusion(y_true: np.ndarray, probabilities: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """The confusion matrix ``(C, C)`` of the most probable classes over the real steps (rows = true classes)."""
    y, p = _real(y_true, probabilities, mask)
    return confusion_matrix(y, p.argmax(axis=1), probabilities.shape[-1])


def class_table(y_true: np.ndarray, probabilities: np.ndarray, mask: np.ndarray | None = None) -> dict[str, list]:
    """Precision, recall, F1 and support of every class (lists of C numbers), over the real steps."""
    scores = per_class_scores(class_confusion(y_true, probabilities, mask))
    return {name: values.tolist() for name, values in scores.items()}


def class_frequencies(y: np.ndarray, classes: int) -> np.ndarray:
    """Relative frequency of every class over the last axis of ``y``'s ids: ``(..., C)``."""
    one_hot = np.eye(classes)[np.asarray(y, dtype=int)]  # (..., C)
    return one_hot.reshape(-1, classes).mean(axis=0)


def class_evaluation(
    test: Split, probabilities: np.ndarray, baselines: dict[str, np.ndarray], mask: np.ndarray | None = None
) -> Evaluation:
    """Class probabilities of the model and of each baseline (same shape) judged on the test split.

    ``mask`` (shaped like ``test.y``) leaves the padding out of every score.
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
    metrics = against_baselines(partial(class_metrics, mask=mask), test.y, probabilities, baselines)
    metrics["per_class"] = against_baselines(partial(class_table, mask=mask), test.y, probabilities, baselines)
    metrics["confusion"] = against_baselines(
        lambda y, p: class_confusion(y, p, mask).tolist(), test.y, probabilities, baselines
    )
    return Evaluation(metrics, predictions)


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
        test_metrics=(ACCURACY, MACRO_F1, CROSS_ENTROPY),
        outputs=lambda meta: (len(meta.classes or ()),),
        baselines="The majority baseline always predicts the most frequent training class.",
        inputs=sequence_inputs,
        preprocessor=sequence_preprocessor,
        save_assets=save_sequence_assets,
        load_assets=load_sequence_assets,
        export=export_sequence,
        text_endpoint=TextEndpoint(TEXT_ENDPOINT),
        text_answer=class_answers,
    )
)
