"""A strategy scored over a run's whole test period: the CLI's ``forecast`` and the Forecast page's summary.

Every test origin (or every ``every``-th) that leaves ``horizon`` actual values
is forecast with the chosen strategy, future-input mode and, for a sampling
strategy, ``samples`` futures with the noise per lead of ``lead_sigmas``. The
errors (``forecast_metrics``, MASE against the training rows' seasonal naive)
and, when it sampled, the coverage and width of the 80 % and 95 % bands
(``band_metrics``) come back with the peers' errors on the same origins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from seqlab.data.sequence_data import SequenceData
from seqlab.forecasting.baselines import peers
from seqlab.forecasting.metrics import forecast_metrics
from seqlab.forecasting.series import ForecastSeries
from seqlab.forecasting.steppers import keras_predict
from seqlab.forecasting.strategies import SAMPLES, lead_sigmas
from seqlab.forecasting.strategy_catalogue import STRATEGIES, available_strategies

if TYPE_CHECKING:
    import keras


@dataclass(frozen=True)
class StrategyScores:
    """Errors of one strategy over the test origins, beside the peers'.

    Attributes:
        strategy, mode, horizon, samples: what was scored (``samples``: 1 unless it sampled).
        origins: the rows forecast from.
        model: ``forecast_metrics`` of the strategy's point forecast (the sample mean when it sampled).
        baselines: the same for every peer on the same origins.
        bands: nominal coverage (80, 95) -> ``band_metrics`` (empty unless it sampled).
    """

    strategy: str
    mode: str
    horizon: int
    samples: int
    origins: np.ndarray
    model: dict
    baselines: dict
    bands: dict

    def as_dict(self) -> dict:
        bands = {str(level): {k: v for k, v in b.items() if not k.endswith("per_step")} for level, b in self.bands.items()}
        return {
            "strategy": self.strategy, "future_inputs": self.mode, "horizon": self.horizon, "samples": self.samples,
            "origins": len(self.origins), "model": self.model, "baselines": self.baselines, "bands": bands,
        }


def score_strategy(
    model: keras.Model, data: SequenceData, strategy: str = "direct", horizon: int | None = None,
    mode: str = "known", samples: int = 200, every: int = 1, seed: int = 0,
) -> StrategyScores:
    """Score ``strategy`` (a name in ``STRATEGIES``) from the test origins of ``data``, a run's reloaded data."""
    SAMPLES.check("samples", samples)  # whichever strategy: a number given is a number checked
    chosen = STRATEGIES.get(strategy)
    offered = [s.name for s in available_strategies(model)]
    if strategy not in offered:
        raise ValueError(f"Strategy {strategy!r} does not apply to this model; it offers {', '.join(offered)}.")
    series = ForecastSeries.from_data(data)
    horizon = series.horizon if horizon is None else int(horizon)
    longest = chosen.max_horizon(series)
    if horizon < 1 or (longest is not None and horizon > longest):
        raise ValueError(f"horizon must lie in 1..{longest or 'any'} for strategy {strategy!r}, got {horizon}.")
    if int(every) != every or every < 1:
        raise ValueError(f"every must be a positive integer, got {every!r}.")
    origins = np.asarray(data.splits["test"].origin)
    origins = origins[origins + horizon <= len(series.values)][::every]
    if len(origins) == 0:
        raise ValueError(f"No test origin has {horizon} actual values after it: choose a shorter horizon.")
    sigma = lead_sigmas(keras_predict(model), data.splits["val"]) if chosen.stochastic else 0.0
    samples = samples if chosen.stochastic else 1
    outcome = chosen.run(model, series, origins, horizon, mode, samples, sigma, seed)
    y = data.target_series[origins[:, None] + np.arange(horizon)]
    baselines, scale = peers(data, origins, horizon)
    return StrategyScores(
        strategy=strategy, mode=mode, horizon=horizon, samples=samples, origins=origins,
        model=forecast_metrics(y, outcome.forecast, scale=scale),
        baselines={name: forecast_metrics(y, f, scale=scale) for name, f in baselines.items()},
        bands=outcome.simulation.band_metrics(y) if outcome.simulation is not None else {},
    )
