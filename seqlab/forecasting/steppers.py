r"""One-step simulators: take in the row of step $t-1$, predict $\hat y_{t}$ (``seqlab.models.steps``).

What an iterated forecast repeats (``seqlab.forecasting.strategies``) is a
forecaster's steps: ``read`` the window's rows before its last, then each
``next(x, state, t)`` reads one completed row ``x`` (raw units, the
prediction as the target; ``(row, future)`` for a model that also reads the
inputs known over the horizon, ``future`` ``(B, H, K)``) and gives the
model's outputs ``(B, H)``, of which the first is $\hat y_t$:

- ``WindowSteps``: any window model. The state is the window's last T-1
  rows; each step appends the new row, the model re-reads the T rows, and the
  oldest is dropped.
- the free run: a model whose architecture's steps continue its state from
  the end of the window instead of re-reading it (``free_run_steps``: the
  echo state network's reservoir,
  $z_t = (1-a) z_{t-1} + a \tanh(B z_{t-1} + V u_t + b)$).

A ``predict`` is any callable from the model's inputs (``x`` or ``[x, future]``)
to ``(B, H)`` outputs, in the data's units.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from seqlab.models.steps import Steps
from seqlab.models.registry import steps_or_none

Predict = Callable[[object], np.ndarray]


def keras_predict(model) -> Predict:
    """A Keras model as a ``predict``: one compiled call per batch, float64 out."""
    return lambda inputs: np.asarray(model.predict_on_batch(inputs), dtype="float64")


class WindowSteps(Steps):
    """The iterated single-step predictor of any window model (its outputs, the window re-read each step)."""

    def __init__(self, predict: Predict):
        self.predict = predict

    def start(self, rows: int) -> np.ndarray:
        return np.zeros((rows, 0, 0), dtype="float32")

    def read(self, rows, state):
        """``(no outputs, the rows kept)``: the window is read whole by the next step."""
        rows = np.asarray(rows, dtype="float32")
        kept = rows if state.shape[1] == 0 else np.concatenate([state, rows], axis=1)
        return np.zeros((len(rows), 0)), kept

    def next(self, x, state, t):
        row, future = x if isinstance(x, tuple) else (x, None)
        window = np.concatenate([state, np.asarray(row, dtype="float32")[:, None, :]], axis=1)
        inputs = window if future is None else [window, np.asarray(future, dtype="float32")]
        return np.asarray(self.predict(inputs), dtype="float64"), window[:, 1:]


def free_run_steps(model) -> Steps | None:
    """The steps that free-run ``model`` (its architecture's, where they continue a forecaster's state), else
    ``None``: a model without them, or whose head also reads the known future inputs."""
    steps = steps_or_none(model)
    return steps if steps is not None and steps.free_runs else None


def can_free_run(model) -> bool:
    """Whether the free run applies to ``model`` (see ``free_run_steps``)."""
    return free_run_steps(model) is not None
