r"""Multi-step forecast strategies: direct, iterated, Monte-Carlo simulation, and the ESN's free run.

For origin $t$ (the model's window holds $y_{t-T} \dots y_{t-1}$ and
$\mathbf{x}_{t-T} \dots \mathbf{x}_{t-1}$), lead $\tau = 0, \dots, H_{out}-1$:

- **direct**: the model's own $H$ outputs, one per step (needs $H_{out} \le H$):
  $$ \hat y_{t+\tau} = f^{\tau}(y_{t-1}, \dots, y_{t-T}, \mathbf{x}_{t-1}, \dots, \mathbf{x}_{t-T}) $$
- **iterated**: the one-step predictor $f^0$ (the model's first output) fed
  back, any $H_{out}$:
  $$ \hat y_{t+\tau} = f^{0}(\hat y_{t+\tau-1}, \dots, \hat y_{t}, y_{t-1}, \dots,
     \mathbf{x}_{t+\tau-1}, \dots, \mathbf{x}_{t+\tau-T}) $$
  with the future $\mathbf{x}$ from a future-input mode
  (``seqlab.forecasting.exogenous``: known, zero or predicted by $f^x$).
- **Monte-Carlo**: the iterated simulation repeated for $S$ sampled futures,
  Gaussian noise added to each prediction before it is fed back,
  $$ y^{(s)}_{t+\tau} = f^0(\dots) + \epsilon^{(s)}_{t+\tau}, \qquad
     \epsilon_{t+\tau} \sim \mathcal{N}(0, \sigma_\tau^2) $$
  with $\sigma_\tau^2$ the variance of the model's validation residuals at
  lead $\tau$, $y_{t+\tau} - f^\tau(\dots)$ (``lead_sigmas``; $\sigma_0$ is
  the notes' one-step residual, the last repeats beyond $H$). A single
  one-step $\sigma$ leaves the bands far too narrow: most of a day-ahead
  error is not a one-step disturbance carried forward (on ``energy`` its 95 %
  band covered 57 % of the test values, the per-lead one 97 %). The samples
  give the mean, variance, covariance across steps and the 80 % and 95 %
  bands (empirical quantiles).
- **free run** (echo state networks): the iterated loop on the reservoir's
  state, continued from the end of the window (``free_run_steps``).

A model that takes known future inputs gets ``future`` $(B, H, K)$ at every
step, rows $t+\tau \dots t+\tau+H-1$ of the same exogenous path (past the end
of the data, ``known`` repeats the last row). No strategy reads a target value
after the origin.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqlab.checks import Range
from seqlab.data.sequence_data import Split
from seqlab.forecasting.exogenous import exogenous_path
from seqlab.forecasting.metrics import band_metrics
from seqlab.forecasting.series import ForecastSeries
from seqlab.forecasting.steppers import Predict, WindowSteps, free_run_steps
from seqlab.limits import check_memory
from seqlab.models.steps import Steps

SAMPLES = Range(1, 100_000)  # futures per origin of a Monte-Carlo strategy; the memory they take is checked too

BANDS = {80: (10.0, 90.0), 95: (2.5, 97.5)}  # nominal coverage (%) -> the sample quantiles (%) bounding it


def direct(predict: Predict, series: ForecastSeries, origins, horizon: int | None = None,
           mode: str = "known") -> np.ndarray:
    """The model's own outputs ``(N, H_out)`` for every origin (one ``predict`` call); ``H_out <= H``."""
    horizon = series.horizon if horizon is None else _positive("horizon", horizon)
    if horizon > series.horizon:
        raise ValueError(
            f"The direct strategy gives at most the model's own {series.horizon} steps, not {horizon}; "
            "use the iterated or Monte-Carlo strategy for longer horizons."
        )
    origins = series.check_origins(origins)
    windows = series.windows(origins)
    if not series.known:
        return np.asarray(predict(windows), dtype="float64")[:, :horizon]
    future = exogenous_path(series, origins, series.horizon, mode)[:, :, series.known_index]
    return np.asarray(predict([windows, future.astype("float32")]), dtype="float64")[:, :horizon]


def simulate(steps: Steps, series: ForecastSeries, origins, horizon: int, mode: str = "known",
             sigma: float | np.ndarray = 0.0, samples: int = 1, seed: int = 0) -> np.ndarray:
    """``(N, S, H_out)`` paths of a forecaster's steps fed back ``H_out`` times, noise ``N(0, sigma_tau^2)`` added.

    ``sigma``: one standard deviation, or one per lead (the last repeats
    beyond its length). All origins and samples go through the model as one
    batch per step.
    """
    horizon, samples = _positive("horizon", horizon), int(SAMPLES.check("samples", samples))
    sigma = _per_lead(sigma, horizon)  # one value, or one per lead (the last repeats)
    if not np.isfinite(sigma).all() or (sigma < 0).any():
        raise ValueError(f"sigma must be finite numbers >= 0, got {sigma!r}.")
    origins = series.check_origins(origins)
    ahead = series.horizon - 1 if series.known else 0  # the model reads H known rows from every step
    check_simulation(len(origins), samples, horizon + ahead, series.lookback, len(series.features))
    path = np.repeat(exogenous_path(series, origins, horizon + ahead, mode), samples, axis=0)  # (N*S, L, F)
    windows = np.repeat(series.windows(origins), samples, axis=0)
    _, state = steps.read(windows[:, :-1], steps.start(len(windows)))  # the window's last row: the first step's
    row = windows[:, -1]
    rng = np.random.default_rng(seed)
    out = np.empty((len(path), horizon))
    for tau in range(horizon):
        future = path[:, tau : tau + series.horizon, series.known_index] if series.known else None
        outputs, state = steps.next(row if future is None else (row, future), state, tau)
        y = np.asarray(outputs, dtype="float64")[:, 0]
        if sigma[tau] > 0:
            y = y + sigma[tau] * rng.standard_normal(len(y))
        out[:, tau] = y
        row = path[:, tau].copy()  # the completed row the next step reads
        row[:, 0] = y
    return out.reshape(len(origins), samples, horizon)


def check_simulation(origins: int, samples: int, steps: int, lookback: int, features: int) -> None:
    """Refuse ``samples`` paths from each of ``origins`` whose arrays would pass ``max_data_mb``, before any is made.

    Per path: its inputs ahead (``steps`` x ``features``, float64), the window it
    starts from (float32, three copies while the state is read from it) and
    its outputs with their summaries' copies (four float64 rows);
    per origin, when it samples, the covariance across steps and its product.
    """
    per_path = 8 * steps * features + 3 * 4 * lookback * features + 4 * 8 * steps
    covariance = 2 * 8 * steps**2 if samples > 1 else 0
    check_memory(
        origins * (samples * per_path + covariance),
        f"{samples:,} simulated futures of {steps:,} steps from each of {origins:,} origins",
        "use fewer samples, a shorter horizon or fewer origins (every)",
    )


def iterated(predict: Predict, series: ForecastSeries, origins, horizon: int, mode: str = "known") -> np.ndarray:
    """The one-step predictor fed back ``(N, H_out)``: ``H_out`` model calls, any ``H_out``."""
    return simulate(WindowSteps(predict), series, origins, horizon, mode)[:, 0]


def free_run(model, series: ForecastSeries, origins, horizon: int, mode: str = "known") -> np.ndarray:
    """An echo state network's closed loop ``(N, H_out)``; ``ValueError`` for a model that cannot free-run."""
    steps = free_run_steps(model)
    if steps is None:
        raise ValueError(
            "This model has no reservoir whose state alone feeds its head, so it cannot free-run; "
            "use the iterated strategy."
        )
    return simulate(steps, series, origins, horizon, mode)[:, 0]


@dataclass(frozen=True)
class MonteCarlo:
    """Summary of ``S`` simulated futures per origin (``N`` origins, ``H_out`` steps).

    Attributes:
        samples: ``(N, S, H_out)`` the simulated paths.
        mean, variance: ``(N, H_out)`` over the samples.
        covariance: ``(N, H_out, H_out)`` across horizon steps.
        bands: nominal coverage (80, 95) -> ``(lower, upper)``, each ``(N, H_out)``.
        sigma: the noise's standard deviation per lead ``(H_out,)``.
    """

    samples: np.ndarray
    mean: np.ndarray
    variance: np.ndarray
    covariance: np.ndarray
    bands: dict[int, tuple[np.ndarray, np.ndarray]]
    sigma: np.ndarray

    @classmethod
    def of(cls, samples: np.ndarray, sigma: float | np.ndarray) -> MonteCarlo:
        centred = samples - samples.mean(axis=1, keepdims=True)
        dof = max(samples.shape[1] - 1, 1)
        bands = {
            level: tuple(np.percentile(samples, q, axis=1) for q in quantiles) for level, quantiles in BANDS.items()
        }
        return cls(
            samples=samples,
            mean=samples.mean(axis=1),
            variance=samples.var(axis=1, ddof=1) if samples.shape[1] > 1 else np.zeros_like(samples[:, 0]),
            covariance=np.einsum("nsi,nsj->nij", centred, centred) / dof,
            bands=bands,
            sigma=_per_lead(sigma, samples.shape[2]),
        )

    def band_metrics(self, y_true: np.ndarray) -> dict[int, dict]:
        """Coverage and width of the 80 % and 95 % bands against the actual values ``(N, H_out)``."""
        return {level: band_metrics(y_true, lower, upper) for level, (lower, upper) in self.bands.items()}


def monte_carlo(steps: Steps, series: ForecastSeries, origins, horizon: int, sigma: float | np.ndarray,
                samples: int = 200, mode: str = "known", seed: int = 0) -> MonteCarlo:
    """``samples`` noisy iterated futures of every origin, summarised; seeded."""
    return MonteCarlo.of(simulate(steps, series, origins, horizon, mode, sigma, samples, seed), sigma)


def lead_sigmas(predict: Predict, split: Split) -> np.ndarray:
    """$\\sigma_\\tau$ ``(H,)``: the standard deviation of the residuals $y_{t+\\tau} - f^\\tau$ on ``split`` (validation)."""
    if len(split) < 2:
        raise ValueError("The validation split has fewer than 2 windows: no residual variance for Monte-Carlo.")
    residuals = split.y - np.asarray(predict(split.inputs), dtype="float64")
    return residuals.std(axis=0)


def _per_lead(sigma, horizon: int) -> np.ndarray:
    sigma = np.atleast_1d(np.asarray(sigma, dtype="float64"))
    return sigma[np.minimum(np.arange(horizon), len(sigma) - 1)]


def _positive(name: str, value) -> int:
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    return int(value)
