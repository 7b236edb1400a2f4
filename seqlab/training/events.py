"""Training events: a plain function receives dicts; this callback produces them.

Event types (all carry ``type``):
    start: epochs, steps_per_epoch, device (from the fit's parameters, whatever the fit:
           ``model.fit``, truncated BPTT or a closed-form solve)
    batch: epoch, step, global_step, loss (the epoch's running mean, as Keras reports it),
           batch_loss (that batch's own loss, recovered from consecutive running means),
           grad_norm (the batch gradient's global norm before clipping; gradient training only),
           learning_rate (the rate that batch's step applied, from the optimizer's schedule; gradient
           training only), elapsed
    epoch: epoch, loss, val_loss, learning_rate (its last batch's), and any other metric Keras logged, elapsed
    status: phase, message, at (the wall-clock time): a phase begins, ``load``, ``build``, ``evaluate`` or
           ``export`` in a job's order (training's own are start, batch and epoch); a status from
           elsewhere, such as the Ray node a job trains on, has no phase
    progress: phase, message, done, total, unit, elapsed, eta (seconds left at the rate so far, ``None``
           before the first unit), at: how far the work of a phase has come (``seqlab.progress``): the
           test split's predictions, the baselines
    note: message, what loading the data had to adapt (``SequenceData.notes``), before training
    end: status ("completed", "cancelled" or "diverged"), run_id, path, metrics, baselines

A loss that turns NaN or infinite stops training at that batch: the run is
``diverged`` (too high a learning rate, exploding gradients), and still written
(the run store writes NaN as JSON's null).
"""

from __future__ import annotations

import math
import threading
import time
from typing import Callable

import keras

EventHandler = Callable[[dict], None]


def status(phase: str, message: str) -> dict:
    """The ``status`` event that ``phase`` begins, as ``message`` says (``"exporting the TensorFlow SavedModel"``)."""
    return {"type": "status", "phase": phase, "message": message, "at": time.time()}


class ProgressEvents:
    """A ``seqlab.progress`` listener: every report of a ``phase``'s work becomes a ``progress`` event, its ETA
    from the rate of that work (named by its message) since its first report."""

    def __init__(self, on_event: EventHandler, phase: str):
        self.on_event = on_event
        self.phase = phase
        self._started: dict[str, float] = {}

    def __call__(self, message: str, done: int, total: int, unit: str) -> None:
        now = time.monotonic()
        elapsed = now - self._started.setdefault(message, now)
        self.on_event({
            "type": "progress", "phase": self.phase, "message": message, "done": done, "total": total,
            "unit": unit, "elapsed": elapsed, "eta": elapsed / done * (total - done) if done else None,
            "at": time.time(),
        })


class EventCallback(keras.callbacks.Callback):
    """Turns Keras callbacks into events, a set ``cancel`` flag into a stop, and a non-finite loss into one."""

    def __init__(self, on_event: EventHandler, cancel: threading.Event | None = None, device: str = ""):
        super().__init__()
        self.on_event = on_event
        self.cancel = cancel
        self.device = device
        self.cancelled = False
        self.diverged = False
        self.history: dict[str, list] = {"batch": [], "epoch": []}
        self._epoch = 0
        self._global_step = 0
        self._start = time.monotonic()

    def _emit(self, event: dict) -> None:
        self.history.setdefault(event["type"], []).append(event)
        self.on_event(event)

    def on_train_begin(self, logs=None):
        self._start = time.monotonic()
        # Not kept in the history: it describes the run, not its progress.
        self.on_event(
            {
                "type": "start",
                "epochs": self.params["epochs"],
                "steps_per_epoch": self.params["steps"],
                "device": self.device,
            }
        )

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch
        self._previous_mean = 0.0
        self._previous_batches = 0

    def on_train_batch_end(self, batch, logs=None):
        mean = float(logs["loss"])
        # Keras passes the running mean over the epoch; undo it to get the loss of the batches since the last
        # call (one batch, or steps_per_execution of them: Keras calls back once per compiled execution).
        done = batch + 1 - self._previous_batches
        batch_loss = ((batch + 1) * mean - self._previous_batches * self._previous_mean) / done
        self._previous_mean, self._previous_batches = mean, batch + 1
        self._global_step += done
        event = {
            "type": "batch",
            "epoch": self._epoch + 1,
            "step": batch + 1,
            "global_step": self._global_step,
            "loss": mean,
            "batch_loss": batch_loss,
            "elapsed": time.monotonic() - self._start,
        }
        event.update({key: float(logs[key]) for key in ("grad_norm", "learning_rate") if key in logs})
        self._emit(event)
        if not math.isfinite(mean):  # one NaN or infinite batch makes the running mean so for good
            self.diverged = True
            self.model.stop_training = True
        elif self.cancel is not None and self.cancel.is_set():
            self.cancelled = True
            self.model.stop_training = True

    def on_epoch_end(self, epoch, logs=None):
        # grad_norm here would be the last batch's (Keras passes the last step's logs on): a batch fact.
        logs = {k: float(v) for k, v in (logs or {}).items() if k != "grad_norm"}
        self._emit({"type": "epoch", "epoch": epoch + 1, **logs, "elapsed": time.monotonic() - self._start})
