"""Scaler: per-feature mean and standard deviation of numeric inputs, fitted on the training rows only.

It belongs to numeric data: the numeric tasks build their ``Normalization``
preprocessor from it and save it with a run (``seqlab.tasks.numeric``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Scaler:
    """Per-feature mean and standard deviation, fitted on the training rows only."""

    mean: np.ndarray
    std: np.ndarray

    @classmethod
    def fit(cls, values: np.ndarray) -> "Scaler":
        std = values.std(axis=0)
        # A constant column (e.g. a flag that never changes in train) must not divide by 0.
        return cls(values.mean(axis=0), np.where(std > 0, std, 1.0))

    @classmethod
    def identity(cls, features: int) -> "Scaler":
        """No scaling: for inputs already in a unit range (one-hot symbols, the adding problem)."""
        return cls(np.zeros(features), np.ones(features))
