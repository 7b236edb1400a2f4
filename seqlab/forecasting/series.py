"""The series a multi-step strategy forecasts from: raw values, which columns are known ahead, the scaling.

Every strategy (``seqlab.forecasting.strategies``) reads the same object, so
the direct, iterated, Monte-Carlo and free-run forecasts of one origin see the
same rows. Origins follow the windowing's convention: for origin ``o`` the
model's window is rows ``o-T .. o-1`` and the forecast covers rows
``o .. o+H_out-1``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from seqlab.data.sequence_data import SequenceData
from seqlab.forecasting.baselines import training_end


@dataclass(frozen=True)
class ForecastSeries:
    """One series with its exogenous inputs, as a run's model reads it.

    Attributes:
        values: ``(rows, F)`` float64 in the data's own units, the run's
            feature order, the target first.
        features: the column names of ``values``.
        known: the columns the model takes as known future inputs over its
            horizon (its second input ``future`` ``(B, H, K)``); empty if none.
        lookback: T, the rows of one input window.
        horizon: H, the model's own number of outputs.
        mean, std: ``(F,)`` the training rows' statistics, the same the
            model's input scaling uses (zero in scaled units = ``mean``).
        train_end: rows before it are training rows (fits of ``f^x``).
    """

    values: np.ndarray
    features: tuple[str, ...]
    known: tuple[str, ...]
    lookback: int
    horizon: int
    mean: np.ndarray
    std: np.ndarray
    train_end: int

    @classmethod
    def from_data(cls, data: SequenceData) -> ForecastSeries:
        """The series of a windowed forecast dataset (the run's data, reloaded with its options)."""
        if data.scaler is None or data.target_index != 0:
            raise ValueError(f"Dataset {data.name!r} is not a forecast series (target first, scaled numbers).")
        return cls(
            values=data.frame.loc[:, list(data.features)].to_numpy(dtype="float64"),
            features=tuple(data.features),
            known=tuple(data.known),
            lookback=data.lookback,
            horizon=data.horizon,
            mean=np.asarray(data.scaler.mean, dtype="float64"),
            std=np.asarray(data.scaler.std, dtype="float64"),
            train_end=training_end(data),
        )

    @property
    def exogenous(self) -> list[int]:
        """Column indices of the exogenous inputs (every column but the target)."""
        return list(range(1, len(self.features)))

    @property
    def known_index(self) -> list[int]:
        """Column indices of the known-ahead inputs, in ``known``'s order."""
        return [self.features.index(c) for c in self.known]

    def with_values(self, values: np.ndarray) -> ForecastSeries:
        """The same series with other values (a what-if on the known future inputs)."""
        values = np.asarray(values, dtype="float64")
        if values.shape != self.values.shape:
            raise ValueError(f"values must keep the shape {self.values.shape}, got {values.shape}.")
        return replace(self, values=values)

    def windows(self, origins: np.ndarray) -> np.ndarray:
        """The model's input windows ``(N, T, F)`` float32 for ``origins`` (rows ``o-T .. o-1``)."""
        origins = self.check_origins(origins)
        return self.values[origins[:, None] + np.arange(-self.lookback, 0)[None, :]].astype("float32")

    def check_origins(self, origins) -> np.ndarray:
        """``origins`` as an int array, each with a full window before it and inside the series."""
        origins = np.atleast_1d(np.asarray(origins)).astype(int)
        bad = origins[(origins < self.lookback) | (origins > len(self.values))]
        if len(bad):
            raise ValueError(
                f"Origin(s) {bad[:5].tolist()} need {self.lookback} rows before them inside the series of "
                f"{len(self.values)} rows; pick origins in [{self.lookback}, {len(self.values)}]."
            )
        return origins
