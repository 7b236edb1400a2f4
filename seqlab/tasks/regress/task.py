"""Regress: a sequence -> real values (many-to-one), e.g. the adding problem's sum.

Head: a linear ``Dense`` on the body's last state. Judged by MSE (the adding
problem's figure), RMSE and MAE against predicting the training mean.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from seqlab.data.sequence_data import SequenceData
from seqlab.tasks.metrics import MAE, MSE, RMSE
from seqlab.tasks.task import Evaluation, Task, against_baselines, register_task

if TYPE_CHECKING:
    import keras


def regression_head(data: SequenceData, features: keras.KerasTensor) -> keras.KerasTensor:
    import keras

    return keras.layers.Dense(data.horizon, name="regression")(features)  # (B, K)


def regression_metrics(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    """MSE, RMSE and MAE over every sample and output."""
    if np.shape(y_true) != np.shape(y_pred):
        raise ValueError(f"y_true has shape {np.shape(y_true)} but y_pred has {np.shape(y_pred)}.")
    error = np.asarray(y_pred, dtype="float64") - np.asarray(y_true, dtype="float64")
    mse = float(np.mean(error**2))
    return {"mse": mse, "rmse": float(np.sqrt(mse)), "mae": float(np.mean(np.abs(error)))}


def evaluate_regression(data: SequenceData, y_pred: np.ndarray) -> Evaluation:
    test = data.splits["test"]
    # The best constant under MSE: the training mean (1 for the adding problem, MSE ≈ 0.167).
    mean = np.broadcast_to(data.splits["train"].y.mean(axis=0), test.y.shape)
    metrics = against_baselines(regression_metrics, test.y, y_pred, {"mean": mean})
    predictions = {"y_true": test.y, "y_pred": y_pred, "origin": test.origin, "baseline_mean": mean}
    return Evaluation(metrics, predictions)


REGRESS = register_task(
    Task(
        name="regress",
        sequence_outputs=False,
        loss="mse",
        metrics=("mae",),
        head=regression_head,
        evaluate=evaluate_regression,
        readout="regression",
        readout_targets=lambda data, y: y,
        test_metrics=(MSE, RMSE, MAE),
        outputs=lambda meta: (meta.horizon,),
        baselines="The mean baseline always predicts the training mean.",
        target_per_sequence=True,
    )
)
