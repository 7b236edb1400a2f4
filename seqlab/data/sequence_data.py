"""SequenceData: what every dataset loader returns, whatever the task."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

TASKS = ("forecast", "classify", "label", "language", "translate")


@dataclass(frozen=True)
class Split:
    """One chronological split of windows.

    ``x`` is ``(N, T, F)`` in the data's own units, ``y`` is ``(N, H)`` for a
    forecast (or ``(N,)`` class ids), ``origin`` the row of the frame at which
    each window's first target step lies (used by baselines and plots).
    """

    x: np.ndarray
    y: np.ndarray
    origin: np.ndarray

    def __len__(self) -> int:
        return len(self.x)


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

    def to_dict(self) -> dict:
        return {"mean": self.mean.tolist(), "std": self.std.tolist()}


@dataclass(frozen=True)
class SequenceData:
    """A dataset ready for training: the raw frame plus windowed splits.

    Attributes:
        name: registry name of the dataset.
        task: one of ``TASKS``.
        frame: the raw series, one row per time step, index = time.
        features: input feature order (target first for a forecast).
        target: the column to predict (forecast tasks).
        units: column -> unit string, for axes.
        lookback: T, the number of past steps the model sees.
        horizon: H, the number of future steps it predicts.
        seasons: season name -> period in steps (``{"day": 48, "week": 336}``),
            for seasonal-naive baselines.
        splits: ``"train"``, ``"val"``, ``"test"`` -> ``Split``.
        scaler: fitted on the training rows, over ``features``.
        options: the resolved loader options, for the run's spec.
    """

    name: str
    task: str
    frame: pd.DataFrame
    features: tuple[str, ...]
    target: str
    units: dict[str, str]
    lookback: int
    horizon: int
    splits: dict[str, Split]
    scaler: Scaler
    seasons: dict[str, int] = field(default_factory=dict)
    options: dict = field(default_factory=dict)

    @property
    def target_index(self) -> int:
        return self.features.index(self.target)

    @property
    def input_shape(self) -> tuple[int, int]:
        return (self.lookback, len(self.features))

    @property
    def target_series(self) -> np.ndarray:
        return self.frame[self.target].to_numpy(dtype="float64")

    def summary(self) -> pd.DataFrame:
        """Summary statistics per column, with units."""
        stats = self.frame.describe().T
        stats.insert(0, "unit", [self.units.get(c, "") for c in stats.index])
        return stats
