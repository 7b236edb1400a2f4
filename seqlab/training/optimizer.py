"""The optimizer and compilation of a spec's model: rate schedule, weight decay, XLA, steps per call.

Free of TensorFlow, so the same compiled step runs under any Keras backend
(``run_experiment`` uses TensorFlow; ``bench/gpt_jax.py`` trains the GPT
preset with JAX on a GPU through this module).
"""

from __future__ import annotations

import math

import keras

from seqlab.data.sequence_data import SequenceData
from seqlab.tasks import get_task
from seqlab.training.spec import ExperimentSpec

MIN_LEARNING_RATE = 0.1  # the cosine schedule ends at this fraction of the rate (nanoGPT's min_lr = lr / 10)


def total_steps(spec: ExperimentSpec, train_rows: int) -> int:
    """The batches training will run: the step budget, or every epoch's batches over ``train_rows`` windows."""
    return spec.steps or spec.epochs * math.ceil(train_rows / spec.batch_size)


def learning_rate(spec: ExperimentSpec, steps: int):
    """The spec's rate: a float, or warm-up then cosine decay over ``steps`` batches (``spec.schedule``)."""
    if spec.schedule == "constant":
        return spec.learning_rate
    warmup = min(spec.warmup_steps, steps - 1)
    # Keras's warm-up climbs linearly from the initial rate (0) to warmup_target, then decays to alpha * it.
    return keras.optimizers.schedules.CosineDecay(
        0.0, max(steps - warmup, 1), alpha=MIN_LEARNING_RATE, warmup_target=spec.learning_rate, warmup_steps=warmup,
    )


def make_optimizer(
    spec: ExperimentSpec, steps: int = 1, model: keras.Model | None = None
) -> keras.optimizers.Optimizer:
    """The spec's optimizer over ``steps`` batches (the schedule's length); ``model``'s vectors are not decayed."""
    # Keras resolves the names in OPTIMIZERS ("adam", "sgd", ...) to its own classes.
    config = {
        "learning_rate": learning_rate(spec, steps), "global_clipnorm": spec.clip_norm, "clipvalue": spec.clip_value,
        # None: no decay step at all; AdamW needs a number (its own default, 0.004, is not what 0 asks for).
        "weight_decay": float(spec.weight_decay) if spec.weight_decay or spec.optimizer == "adamw" else None,
    }
    optimizer = keras.optimizers.get({"class_name": spec.optimizer, "config": config})
    if spec.weight_decay and model is not None:
        # As GPT-2 and nanoGPT: decay the weight matrices, not biases, norms' gains or other vectors.
        optimizer.exclude_from_weight_decay(var_list=[v for v in model.trainable_variables if len(v.shape) < 2])
    return optimizer



def compile_model(model: keras.Model, spec: ExperimentSpec, data: SequenceData) -> keras.Model:
    """``model`` compiled with the spec's optimizer, the task's loss and metrics, and the step options."""
    task = get_task(data.task)
    model.compile(
        optimizer=make_optimizer(spec, total_steps(spec, len(data.splits["train"].y)), model),
        loss=task.loss,
        metrics=list(task.metrics),
        jit_compile=True if spec.jit_compile else "auto",  # auto: Keras's choice (XLA on a GPU, not on a CPU)
        steps_per_execution=spec.steps_per_execution,
    )
    # The optimizer's slots now, not inside the first traced step: variables created while
    # tracing make TensorFlow trace the step twice (7 of the GPT preset's 18 s before step 1).
    model.optimizer.build(model.trainable_variables)
    # So are the compiled metrics' totals, on one training row (the reset leaves them at zero for fit).
    train = data.splits["train"]
    first = train.inputs_of(slice(0, 1))
    model.compute_metrics(first, train.y[:1], model(first), sample_weight=None)
    model.reset_metrics()
    return model
