r"""One-step simulators: predict $\hat y_{t}$ from the current state, then take in the row of step $t$.

A stepper is what an iterated forecast repeats (``seqlab.forecasting.strategies``):

- ``WindowStepper``: any window model. The state is the window of the last T
  rows; each step the model re-reads it and its first output, the one-step
  predictor $f^0$, is the prediction; the completed row is appended and the
  oldest dropped.
- ``ReservoirStepper``: an echo state network's free run. The state is the
  reservoir's $z_t$, continued from the end of the window instead of re-read
  from $z_0 = 0$: $\hat y_t$ is the readout's first output of $z_{t-1}$, and
  the row ($\hat y_t$ and the exogenous inputs, scaled) drives one reservoir
  step $z_t = (1-a) z_{t-1} + a \tanh(B z_{t-1} + V u_t + b)$.

Both return predictions in the data's units; a ``predict`` is any callable
from the model's inputs (``x`` or ``[x, future]``) to ``(B, H)`` outputs.
"""

from __future__ import annotations

from typing import Callable, Protocol

import numpy as np

from seqlab.forecasting.series import ForecastSeries

Predict = Callable[[object], np.ndarray]


class Stepper(Protocol):
    def start(self, windows: np.ndarray) -> object:
        """The state after the input windows ``(B, T, F)`` (raw units)."""

    def one_step(self, state: object, future: np.ndarray | None) -> np.ndarray:
        """``(B,)`` the next value; ``future`` ``(B, H, K)``: the known inputs from that step on, or None."""

    def advance(self, state: object, row: np.ndarray) -> object:
        """The state after the completed row ``(B, F)`` (raw units, the prediction as the target)."""


def keras_predict(model) -> Predict:
    """A Keras model as a ``predict``: one compiled call per batch, float64 out."""
    return lambda inputs: np.asarray(model.predict_on_batch(inputs), dtype="float64")


class WindowStepper:
    """The iterated single-step predictor of any window model (its first output, re-read each step)."""

    def __init__(self, predict: Predict):
        self.predict = predict

    def start(self, windows: np.ndarray) -> np.ndarray:
        return np.asarray(windows, dtype="float32")

    def one_step(self, state: np.ndarray, future: np.ndarray | None) -> np.ndarray:
        inputs = state if future is None else [state, np.asarray(future, dtype="float32")]
        return np.asarray(self.predict(inputs), dtype="float64")[:, 0]

    def advance(self, state: np.ndarray, row: np.ndarray) -> np.ndarray:
        return np.concatenate([state[:, 1:], row[:, None, :].astype("float32")], axis=1)


def free_run_parts(model):
    """``(cell, window -> z_T, z -> outputs)`` of a model that can free-run, else ``None``.

    Decided by what the model contains: one ``ESN`` reservoir returning its last
    state, fed by the window alone, and a head that reads only that state (a
    head that also reads known future inputs cannot be free-run).
    """
    import keras

    from seqlab.layers.recurrent.esn import ESN

    reservoirs = [layer for layer in model.layers if isinstance(layer, ESN)]
    if len(reservoirs) != 1 or reservoirs[0].return_sequences:
        return None
    reservoir = reservoirs[0]
    try:
        states = keras.Model(model.inputs[0], reservoir.output)
        head = keras.Model(reservoir.output, model.output)
    except ValueError:  # the graph is disconnected: another input is needed too
        return None
    return reservoir.cell, states, head


def can_free_run(model) -> bool:
    """Whether ``ReservoirStepper`` applies to ``model`` (see ``free_run_parts``)."""
    return free_run_parts(model) is not None


class ReservoirStepper:
    """The ESN's closed loop: the reservoir continued from its state at the end of the window."""

    def __init__(self, model, series: ForecastSeries):
        parts = free_run_parts(model)
        if parts is None:
            raise ValueError(
                "This model has no reservoir whose state alone feeds its head, so it cannot free-run; "
                "use the iterated strategy."
            )
        self.cell, self.states, self.head = parts
        # The model's own input scaling uses the training statistics, as the series holds them.
        self.mean, self.std = series.mean, series.std

    def start(self, windows: np.ndarray) -> np.ndarray:
        return np.asarray(self.states.predict_on_batch(np.asarray(windows, dtype="float32")))

    def one_step(self, state: np.ndarray, future: np.ndarray | None) -> np.ndarray:
        return np.asarray(self.head.predict_on_batch(state), dtype="float64")[:, 0]

    def advance(self, state: np.ndarray, row: np.ndarray) -> np.ndarray:
        scaled = ((row - self.mean) / self.std).astype("float32")
        z, _, _ = self.cell.step(scaled, [state])
        return np.asarray(z)
