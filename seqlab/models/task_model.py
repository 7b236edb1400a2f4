"""Every seqlab model: raw units in, scaling inside, the architecture's body, the task's head.

    inputs (B, T, F) -> Normalization -> body -> task head -> outputs

Scaling lives inside the model, so the exported SavedModel takes data in its
own units (GW, °C, pixel values, ...) and needs no scaler beside it.

``TaskModel`` is a functional ``keras.Model`` whose training step also
reports ``grad_norm``, the global norm of the gradient before clipping: the
notes' exploding and vanishing gradients, visible per batch. It computes the
gradient once, as Keras's own step does (``keras/src/backend/tensorflow/
trainer.py``), and only adds one global norm.
"""

from __future__ import annotations

from typing import Callable

import keras
import tensorflow as tf
from keras.src.losses import loss as loss_module

from seqlab.data.sequence_data import SequenceData
from seqlab.tasks import get_task


EVAL_BATCH_SIZE = 256  # predict and evaluate in large batches: no gradients are kept


@keras.saving.register_keras_serializable(package="seqlab")
class TaskModel(keras.Model):
    """A functional model that checks its input's shape and logs ``grad_norm`` at every batch.

    The gradient norm comes from ``train_step`` (TensorFlow backend, as ``run_experiment``);
    under ``MirroredStrategy`` it is the first replica's, before the gradients are summed.
    """

    def call(self, inputs, training=None, mask=None):
        # Keras would quietly add a missing feature axis, or fail deep inside a matmul.
        expected = tuple(self.inputs[0].shape[1:])  # (T, F)
        got = tuple(inputs.shape)
        if len(got) != 3 or any(e is not None and g is not None and e != g for e, g in zip(expected, got[1:])):
            raise ValueError(
                f"inputs must have shape (batch, T, F) = (batch, {expected[0]}, {expected[1]}) "
                f"(T: the lookback, F: the features), got {got}."
            )
        return super().call(inputs, training=training, mask=mask)

    def train_step(self, data):
        x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self._compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=True)
            batch = tf.shape(next(i for i in keras.tree.flatten(x) if i is not None))[0]
            self._loss_tracker.update_state(loss_module.unscale_loss_for_distribution(loss), sample_weight=batch)
            loss = self.optimizer.scale_loss(loss)
        gradients = tape.gradient(loss, self.trainable_weights)
        # Before apply_gradients: the optimizer clips (clip_norm, clip_value) inside it.
        grad_norm = tf.linalg.global_norm(gradients)
        self.optimizer.apply_gradients(zip(gradients, self.trainable_weights))
        return {**self.compute_metrics(x, y, y_pred, sample_weight=sample_weight), "grad_norm": grad_norm}


def build_task_model(
    data: SequenceData, body: Callable[[keras.KerasTensor, bool], keras.KerasTensor], name: str
) -> TaskModel:
    """Wrap ``body(scaled_inputs, sequences)`` with the scaling and the task's head.

    ``sequences`` tells the body to return every step ``(B, T, d)`` (labelling)
    instead of the last ``(B, d)``.
    """
    task = get_task(data.task)
    inputs = keras.Input(shape=data.input_shape, name="window")  # (B, T, F) raw units
    scaled = keras.layers.Normalization(
        axis=-1, mean=data.scaler.mean, variance=data.scaler.std**2, name="scale_inputs"
    )(inputs)
    outputs = task.head(data, body(scaled, task.sequence_outputs))
    return TaskModel(inputs, outputs, name=f"{name}_{task.name}")
