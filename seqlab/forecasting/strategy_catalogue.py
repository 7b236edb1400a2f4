r"""The multi-step strategies by name, with their equations: what the Forecast page and a bench choose from.

Each entry runs one strategy of ``seqlab.forecasting.strategies`` on a Keras
model and says what it needs: the direct strategy at most the model's own H
steps, the free run a model whose architecture's steps free-run (``can_free_run``:
the echo state network's reservoir), the Monte-Carlo ones a noise level and a
number of samples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from seqlab.forecasting.series import ForecastSeries
from seqlab.forecasting.steppers import WindowSteps, can_free_run, free_run_steps, keras_predict
from seqlab.forecasting.strategies import MonteCarlo, direct, free_run, iterated, monte_carlo
from seqlab.registry import Registry


@dataclass(frozen=True)
class Outcome:
    """A strategy's answer: the point forecast ``(N, H_out)`` and, when it sampled, the samples' summary."""

    forecast: np.ndarray
    simulation: MonteCarlo | None = None


@dataclass(frozen=True)
class Strategy:
    """One multi-step strategy.

    Attributes:
        name, title: registry key and label.
        equation: LaTeX in the lecture's symbols.
        run: ``(model, series, origins, horizon, mode, samples, sigma, seed) -> Outcome``.
        stochastic: it samples (needs ``samples`` and ``sigma``).
        free_run: it needs a model that can free-run (a reservoir).
        direct: it is limited to the model's own horizon H.
    """

    name: str
    title: str
    equation: str
    run: Callable[..., Outcome]
    stochastic: bool = False
    free_run: bool = False
    direct: bool = False

    def max_horizon(self, series: ForecastSeries) -> int | None:
        """The longest horizon it gives (``None``: any)."""
        return series.horizon if self.direct else None


STRATEGIES: Registry[Strategy] = Registry("forecast strategy")


def available_strategies(model) -> list[Strategy]:
    """The strategies this model supports, in order (the free run only where it has a reservoir)."""
    reservoir = can_free_run(model)
    return STRATEGIES.list(lambda s: reservoir or not s.free_run)


def _steps(model, reservoir: bool):
    return free_run_steps(model) if reservoir else WindowSteps(keras_predict(model))


def _iterated(model, series, origins, horizon, mode="known", samples=1, sigma=0.0, seed=0) -> Outcome:
    return Outcome(iterated(keras_predict(model), series, origins, horizon, mode))


def _free_run(model, series, origins, horizon, mode="known", samples=1, sigma=0.0, seed=0) -> Outcome:
    return Outcome(free_run(model, series, origins, horizon, mode))


def _sampled(reservoir: bool) -> Callable[..., Outcome]:
    def run(model, series, origins, horizon, mode="known", samples=200, sigma=0.0, seed=0) -> Outcome:
        mc = monte_carlo(_steps(model, reservoir), series, origins, horizon, sigma, samples, mode, seed)
        return Outcome(mc.mean, mc)

    return run


def _direct(model, series, origins, horizon, mode="known", samples=1, sigma=0.0, seed=0) -> Outcome:
    return Outcome(direct(keras_predict(model), series, origins, horizon, mode))


# Aligned over several lines: the page shows them in a narrow column beside the chart.
_DIRECT = (
    r"\begin{aligned} \hat y_{t+\tau} &= f^{\tau}\left(y_{t-1}, \dots, y_{t-T},\right. \\"
    r"&\qquad \left.\mathbf{x}_{t-1}, \dots, \mathbf{x}_{t-T}\right), \\ \tau &= 0, \dots, H-1 \end{aligned}"
)
_ITERATED = (
    r"\begin{aligned} \hat y_{t+\tau} &= f\left(\hat y_{t+\tau-1}, \dots, \hat y_{t},\right. \\"
    r"&\qquad y_{t-1}, \dots, y_{t+\tau-T}, \\"
    r"&\qquad \left.\mathbf{x}_{t+\tau-1}, \dots, \mathbf{x}_{t+\tau-T}\right) \end{aligned}"
)
_NOISE = (
    r"\begin{aligned} y^{(s)}_{t+\tau} &= f\left(y^{(s)}_{t+\tau-1}, \dots, \mathbf{x}_{t+\tau-1}, \dots\right) \\"
    r"&\quad + \epsilon^{(s)}_{t+\tau}, \\ \epsilon_{t+\tau} &\sim \mathcal{N}(0, \sigma_\tau^2), \quad s = 1, \dots, S"
    r" \end{aligned}"
)
_RESERVOIR = (
    r"\begin{aligned} z_{t+\tau} &= (1-a)\, z_{t+\tau-1} \\"
    r"&\quad + a \tanh\left(B z_{t+\tau-1} + V u_{t+\tau} + b\right), \\"
    r"\hat y_{t+\tau+1} &= W z_{t+\tau}, \\ u_{t+\tau} &= (\hat y_{t+\tau}, \mathbf{x}_{t+\tau})"
)
_END = r" \end{aligned}"

for _strategy in (
    Strategy("direct", "Direct (one output per step)", _DIRECT, _direct, direct=True),
    Strategy("iterated", "Iterated single-step", _ITERATED, _iterated),
    Strategy("monte_carlo", "Monte-Carlo (iterated, sampled noise)", _NOISE, _sampled(False), stochastic=True),
    Strategy("free_run", "ESN free run (closed loop)", _RESERVOIR + _END, _free_run, free_run=True),
    Strategy(
        "monte_carlo_free_run", "Monte-Carlo free run (ESN, sampled noise)",
        _RESERVOIR + r", \\ \hat y_{t+\tau} &\to \hat y_{t+\tau} + \epsilon, \quad \epsilon \sim \mathcal{N}(0, \sigma_\tau^2)"
        + _END,
        _sampled(True), stochastic=True, free_run=True,
    ),
):
    STRATEGIES.register(_strategy.name, _strategy)
