r"""Truncated backpropagation through time, TBPTT(k1, k2), on a forecaster's training series.

k1 is the number of steps run forward between two updates, k2 the number of
steps the gradient flows back. The notes (seed 003) list the choices:

| choice | what it does |
| --- | --- |
| TBPTT(n, n) | one update at the end of the length-n sequence: plain BPTT |
| TBPTT(1, n) | an update at every step, back over all n steps (Williams & Peng) |
| TBPTT(k1, 1) | too little temporal context to learn; relies on the state and inputs |
| TBPTT(k1, k2), k1 < k2 < n | several updates per sequence: faster training |
| TBPTT(k1, k2), k1 = k2 | the common choice, tens to hundreds of steps |

How it runs here. The training rows become one series: input $x_t$ (the
window features of row t) and, at every step, the forecaster's target, the
next H values. The series is cut into ``batch_size`` contiguous streams run
side by side, and the recurrent state is carried from one update to the next
(stateful). Every k1 steps comes an update: the last $L = \max(k_1, k_2)$ steps
are run from the carried state; the state $k_2$ steps back is a constant
(``stop_gradient``), so no gradient reaches further; the loss is the mean
squared error of the forecasts at the last $\min(k_1, k_2)$ steps, the new
steps that the backward pass covers. The head is the forecaster's own
``Dense`` at every step, so the trained weights serve the windowed model,
which is what is validated, tested and exported (from a zero state: its
lookback must be long enough to forget that start).

The model runs from a carried state through its architecture's steps
(``seqlab.models.steps``, ``read``), so what is supported is what they
support: a stack of unidirectional recurrent layers between the model's
scaling and its head (``simple_rnn``, ``lstm``, ``gru`` without
``bidirectional``); anything else is refused with a ValueError.
"""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

from seqlab.data.sequence_data import SequenceData
from seqlab.data.windowing import make_windows, split_points
from seqlab.models.steps import Steps
from seqlab.models.registry import steps_of
from seqlab.models.task_model import EVAL_BATCH_SIZE


def tbptt_steps(model: keras.Model) -> Steps:
    """The steps of a model that TBPTT can train: a stack of unidirectional recurrent layers (module docstring)."""
    try:
        return steps_of(model)
    except ValueError as err:
        raise ValueError(
            f"tbptt needs a stack of unidirectional recurrent layers (simple_rnn, lstm, gru) to carry the state "
            f"from one update to the next: {err}"
        ) from None


class TruncatedBPTT:
    """Stateful updates of a compiled ``model`` by TBPTT(k1, k2), sharing its weights and optimizer.

    ``steps`` (``tbptt_steps``) runs the model over a span from a carried state.
    """

    def __init__(self, model: keras.Model, steps: Steps, k1: int, k2: int):
        self.model, self.steps, self.k1, self.k2 = model, steps, k1, k2
        self.length = max(k1, k2)  # L: steps run per update
        # Segment ends within a run of L steps: where the gradient is cut, where the carry is taken.
        self.bounds = sorted({0, self.length - k2, k1, self.length})
        self.loss_fn = keras.losses.get(model.loss)
        self._update = tf.function(self._update_step)

    def initial_states(self, batch: int) -> tuple:
        return self.steps.start(batch)

    def run(self, x, states, training=False):
        """The layers over ``x`` ``(B, s, F)`` from ``states``: outputs ``(B, s, H)`` and the new states."""
        return self.steps.read(x, states, training=training)

    def loss(self, x, y, states, training=True):
        """Loss of one update over ``x``, ``y`` (L steps) from ``states``, and the carry.

        The carry (the state after k1 steps, where the next update starts) is
        a constant: gradients never flow from one update into the previous one.
        """
        outputs, carry = [], None
        for start, end in zip(self.bounds[:-1], self.bounds[1:]):
            out, states = self.run(x[:, start:end], states, training)
            outputs.append(out)
            if end == self.length - self.k2:
                states = keras.tree.map_structure(tf.stop_gradient, states)  # the k2 cut
            if end == self.k1:
                carry = keras.tree.map_structure(tf.stop_gradient, states)
        outputs = tf.concat(outputs, axis=1)  # (B, L, H)
        m = min(self.k1, self.k2)
        return tf.reduce_mean(self.loss_fn(y[:, -m:], outputs[:, -m:])), carry

    def _update_step(self, x, y, states):
        weights = self.model.trainable_weights
        with tf.GradientTape() as tape:
            loss, carry = self.loss(x, y, states)
        gradients = tape.gradient(loss, weights)
        grad_norm = tf.linalg.global_norm(gradients)  # before the optimizer clips
        rate = tf.identity(self.model.optimizer.learning_rate)  # the rate this step applies (as TaskModel)
        self.model.optimizer.apply_gradients(zip(gradients, weights))
        return loss, grad_norm, rate, carry

    def update(self, x, y, states):
        """One optimizer step on L steps: ``(loss, grad_norm, learning_rate, carry)``."""
        return self._update(tf.constant(x), tf.constant(y), states)


def training_streams(data: SequenceData, streams: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """The training rows as ``streams`` contiguous series: inputs ``(B, S, F)``, targets ``(B, S, H)``.

    At step t the input is row t and the target rows t+1 .. t+H, all before validation.
    """
    val_start, _ = split_points(len(data.frame), data.options["val_fraction"], data.options["test_fraction"])
    values = data.frame.loc[:, list(data.features)].to_numpy(dtype="float64")
    # One-step windows: x = row o-1, y = rows o .. o+H-1, for every origin in the training rows.
    steps = make_windows(values, data.target_series, 1, data.horizon, 1, val_start - data.horizon)
    per_stream = len(steps) // streams
    if per_stream < length:
        raise ValueError(
            f"The {len(steps)} training steps make {streams} streams of {per_stream} steps, fewer than "
            f"max(k1, k2) = {length}; lower batch_size (the number of streams) or k1, k2."
        )
    n = streams * per_stream
    x = steps.x[:n, 0].reshape(streams, per_stream, -1)  # (B, S, F)
    y = steps.y[:n].reshape(streams, per_stream, -1)  # (B, S, H)
    return x, y


def tbptt_fit(model: keras.Model, data: SequenceData, spec, callbacks: list) -> None:
    """Train ``model`` by TBPTT(k1, k2) = ``spec.tbptt``, driving ``callbacks`` as ``model.fit`` does."""
    k1, k2 = spec.tbptt
    if data.known:  # streams carry one row per step; the horizon's known inputs have no place in them
        raise ValueError(
            "TBPTT trains on one long stream of single rows, which cannot carry the inputs known over the "
            "horizon: turn the dataset option known_future off, or train without tbptt."
        )
    trainer = TruncatedBPTT(model, tbptt_steps(model), k1, k2)
    x, y = training_streams(data, spec.batch_size, trainer.length)
    starts = range(0, x.shape[1] - trainer.length + 1, k1)
    val = data.splits["val"]
    callbacks = keras.callbacks.CallbackList(callbacks, model=model, epochs=spec.epochs, steps=len(starts))
    model.optimizer.build(model.trainable_weights)  # outside tf.function: it creates variables
    model.stop_training = False
    callbacks.on_train_begin()
    for epoch in range(spec.epochs):
        callbacks.on_epoch_begin(epoch)
        states = trainer.initial_states(len(x))  # every stream starts from z_0 = 0
        total = 0.0
        for step, start in enumerate(starts):
            callbacks.on_train_batch_begin(step)
            window = slice(start, start + trainer.length)
            loss, grad_norm, rate, states = trainer.update(x[:, window], y[:, window], states)
            total += float(loss)
            callbacks.on_train_batch_end(
                step, {"loss": total / (step + 1), "grad_norm": float(grad_norm), "learning_rate": float(rate)}
            )
            if model.stop_training:
                break
        val_logs = model.evaluate(val.inputs, val.y, batch_size=EVAL_BATCH_SIZE, return_dict=True, verbose=0)
        logs = {"loss": total / (step + 1), "learning_rate": float(rate),
                **{f"val_{k}": v for k, v in val_logs.items()}}
        callbacks.on_epoch_end(epoch, logs)
        if model.stop_training:
            break
    callbacks.on_train_end()
