"""Every seqlab model: the task's inputs and preprocessor, the architecture's body, the task's head.

    task inputs -> task preprocessor -> body -> task head -> outputs

For the numeric tasks that is ``(B, T, F) -> Normalization -> body -> head``.
The preprocessor lives inside the model, so the exported SavedModel takes
raw data (GW, °C, pixel values; text next) and needs nothing beside it.

``TaskModel`` is a functional ``keras.Model`` whose training step also
reports ``grad_norm``, the global norm of the gradient before clipping: the
notes' exploding and vanishing gradients, visible per batch; and
``learning_rate``, the rate the optimizer applies in that step (a schedule's
warm-up and decay, visible live). It computes the gradient once, as Keras's
own step does (``keras/src/backend/tensorflow/trainer.py``), and only adds one
global norm and the schedule's value.
"""

from __future__ import annotations

from typing import Callable

import keras

from seqlab.data.sequence_data import SequenceData
from seqlab.tasks import get_task
from seqlab.tasks.task import EVAL_BATCH_SIZE  # noqa: F401  where the trainers and fits read it


# How the shape of an input is named in messages, by its rank after the batch axis.
AXES = {1: ("T", "T: the steps"), 2: ("T, F", "T: the lookback, F: the features")}


def check_input_shape(expected: tuple, got: tuple) -> None:
    """``got`` (batch axis first) has ``expected``'s rank and sizes where both are known."""
    if len(got) != len(expected) + 1 or any(
        e is not None and g is not None and e != g for e, g in zip(expected, got[1:])
    ):
        names, meaning = AXES.get(len(expected), (", ".join(f"d{i}" for i in range(len(expected))), ""))
        sizes = ", ".join(str(e) for e in expected)
        raise ValueError(
            f"inputs must have shape (batch, {names}) = (batch, {sizes})"
            + (f" ({meaning})" if meaning else "") + f", got {got}."
        )


@keras.saving.register_keras_serializable(package="seqlab")
class TaskModel(keras.Model):
    """A functional model that checks its inputs' shapes and logs ``grad_norm`` and ``learning_rate`` at every batch.

    The gradient norm comes from ``train_step`` (TensorFlow backend, as ``run_experiment``);
    under ``MirroredStrategy`` it is the first replica's, before the gradients are summed.
    Under another backend (JAX on a GPU: ``bench/gpt_jax.py``) Keras's own step runs, without it.
    """

    def call(self, inputs, training=None, mask=None):
        # Keras would quietly add a missing feature axis, or fail deep inside a matmul.
        given = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        for symbolic, tensor in zip(self.inputs, given):
            check_input_shape(tuple(symbolic.shape[1:]), tuple(tensor.shape))
        return super().call(inputs, training=training, mask=mask)

    def train_step(self, *args):
        if keras.backend.backend() != "tensorflow":
            return super().train_step(*args)  # JAX's step is a pure function of (state, data)
        import tensorflow as tf

        (data,) = args
        x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=True)
            batch = tf.shape(next(i for i in keras.tree.flatten(x) if i is not None))[0]
            # Keras's losses divide by the replicas (their gradients are summed); the logged loss is whole.
            replicas = tf.distribute.get_strategy().num_replicas_in_sync
            logged = loss * tf.cast(replicas, loss.dtype) if replicas > 1 else loss
            self.loss_tracker.update_state(logged, sample_weight=batch)
            loss = self.optimizer.scale_loss(loss)
        gradients = tape.gradient(loss, self.trainable_weights)
        # Before apply_gradients: the optimizer clips (clip_norm, clip_value) inside it.
        grad_norm = tf.linalg.global_norm(gradients)
        rate = tf.identity(self.optimizer.learning_rate)  # before the step counts: the rate this step applies
        self.optimizer.apply_gradients(zip(gradients, self.trainable_weights))
        return {**self.compute_metrics(x, y, y_pred, sample_weight=sample_weight), "grad_norm": grad_norm,
                "learning_rate": rate}

    @property
    def loss_tracker(self) -> keras.metrics.Mean:
        """The mean that ``compile`` made for the ``loss`` that ``fit`` logs, found among the model's metrics."""
        return next(metric for metric in self.metrics if metric.name == "loss")


def build_task_model(
    data: SequenceData, body: Callable[[keras.KerasTensor, bool], keras.KerasTensor], name: str
) -> TaskModel:
    """Wrap ``body(prepared_inputs, sequences)`` with the task's inputs, preprocessor and head.

    ``sequences`` tells the body to return every step ``(B, T, d)`` (labelling)
    instead of the last ``(B, d)``. With several inputs the body reads the
    first; the others (a forecast's known future inputs) go to the head.
    """
    task = get_task(data.task)
    if task.head is None:
        raise ValueError(f"A {task.name} model is built whole by its architecture; it has no body to wrap.")
    inputs = [keras.Input(shape=spec.shape, dtype=spec.dtype, name=spec.name) for spec in task.inputs(data)]
    raw = inputs[0] if len(inputs) == 1 else inputs  # raw units (or text): the SavedModel's arguments
    prepared = task.preprocessor(data)(raw)
    first, *rest = prepared if len(inputs) > 1 else [prepared]
    outputs = task.head(data, body(first, task.sequence_outputs), *rest)
    return TaskModel(raw, outputs, name=f"{name}_{task.name}")
