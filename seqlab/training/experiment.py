"""run_experiment: spec in, trained and exported run folder out.

    spec --load_dataset--> SequenceData --build_model--> keras.Model --fit--> Run

The fit is ``model.fit`` on the windows, truncated BPTT on the series
(``spec.tbptt``), or the architecture's own (a closed-form solve); the task
decides the loss, the metrics, the baselines, how the test split is
predicted and which assets are saved beside the model (``seqlab.tasks``).
Progress leaves only through ``on_event`` (see ``seqlab.training.events``);
a set ``cancel`` flag stops training within one batch and the run is still
written, marked ``cancelled``; a loss that turns NaN or infinite stops it too,
and the run is marked ``diverged``. A model with more weights than the
server's ``max_parameters`` (``seqlab.limits``) is refused while it is built,
before the first weight past the limit is made (``seqlab.models.build_model``).
"""

from __future__ import annotations

import dataclasses
import math
import platform
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

import seqlab
from seqlab.data import SequenceData, load_dataset
from seqlab.manifest import signing_key
from seqlab.models import build_model, get_architecture
from seqlab.models.task_model import EVAL_BATCH_SIZE
from seqlab.run_meta import RunMeta
from seqlab.run_name import check_name, write_name
from seqlab.runs import Run, RunStore, write_json
from seqlab.tasks import get_task
from seqlab.training.devices import device_name, distribution_strategy
from seqlab.training.events import EventCallback, EventHandler
from seqlab.training.optimizer import compile_model
from seqlab.training.spec import ExperimentSpec
from seqlab.training.tbptt import tbptt_fit

# How TensorFlow's file writes fail on a full disk (ENOSPC), a file size limit (EFBIG) or a refused write.
FILE_WRITE_ERRORS = (tf.errors.ResourceExhaustedError, tf.errors.OutOfRangeError, tf.errors.PermissionDeniedError)


def shuffled_batches(inputs, y, batch_size: int, seed: int) -> tf.data.Dataset:
    """Endless batches of the windows, reshuffled every pass, prepared ahead of the step that reads them."""
    rows = len(y)
    data = tf.data.Dataset.from_tensor_slices((inputs, y))
    data = data.shuffle(rows, seed=seed, reshuffle_each_iteration=True).repeat()
    return data.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def gradient_fit(model: keras.Model, data: SequenceData, spec: ExperimentSpec, callbacks: list) -> None:
    """Mini-batch gradient descent on the training windows (full BPTT through each window).

    With a step budget (``spec.steps``) the batches come from ``shuffled_batches``
    and each of the ``epochs`` rounds runs ``steps / epochs`` of them, then validates.
    """
    train, val = data.splits["train"], data.splits["val"]
    if spec.steps:
        model.fit(
            shuffled_batches(train.inputs, train.y, spec.batch_size, spec.seed),
            validation_data=(val.inputs, val.y),
            validation_batch_size=EVAL_BATCH_SIZE,
            epochs=spec.epochs,
            steps_per_epoch=math.ceil(spec.steps / spec.epochs),
            shuffle=False,  # the pipeline shuffles
            callbacks=callbacks,
            verbose=0,
        )
        return
    model.fit(
        train.inputs,
        train.y,
        validation_data=(val.inputs, val.y),
        epochs=spec.epochs,
        batch_size=spec.batch_size,
        callbacks=callbacks,
        verbose=0,
    )


def compiled_model(spec: ExperimentSpec, data: SequenceData, store: RunStore | None = None) -> keras.Model:
    """The spec's model for ``data``, compiled with its optimizer, loss, metrics and step options; runs its
    options name (a pre-trained run) are read from ``store``, where this run will be written."""
    with distribution_strategy().scope():
        return compile_model(build_model(spec.model, data, spec.model_options, runs=store), spec, data)


def run_experiment(
    spec: ExperimentSpec,
    on_event: EventHandler | None = None,
    store: RunStore | None = None,
    cancel: threading.Event | None = None,
    name: str | None = None,
) -> Run:
    """Train ``spec``, evaluate against the baselines, and write the run folder (named ``name``, if given)."""
    emit = on_event or (lambda event: None)
    store = store or RunStore()
    spec = spec.resolved()
    name = check_name(name)  # a bad name fails now, not after training
    signing_key()  # a run is signed when written: an unwritable key folder fails now, not after training
    store.check_writable()  # so does a store below a file or a read-only one
    keras.utils.set_random_seed(spec.seed)
    data = load_dataset(spec.dataset, **spec.data_options)
    for note in data.notes:
        emit({"type": "note", "message": note})
    test = data.splits["test"]
    task = get_task(data.task)
    model = compiled_model(spec, data, store)  # past max_parameters: refused while built, before any training

    device = device_name()
    events = EventCallback(emit, cancel, device)
    callbacks = [*(task.callbacks(data) if task.callbacks else []), events]  # theirs first: events see their logs
    if spec.early_stopping:
        callbacks.append(
            keras.callbacks.EarlyStopping(patience=spec.early_stopping, restore_best_weights=True)
        )
    fit = get_architecture(spec.model).fit or (tbptt_fit if spec.tbptt else gradient_fit)
    started = time.monotonic()
    fit(model, data, spec, callbacks)
    train_seconds = time.monotonic() - started

    emit({"type": "status", "message": "evaluating on the test split against the baselines"})
    evaluation = task.evaluate(data, task.predict(model, test.inputs))
    metrics = evaluation.metrics
    status = "diverged" if events.diverged else "cancelled" if events.cancelled else "completed"
    meta = RunMeta(
        task=data.task,
        status=status,
        dataset=data.name,
        model=spec.model,
        input_shape=list(data.input_shape),
        features=list(data.features),
        target=data.target,
        units=dict(data.units),
        lookback=data.lookback,
        horizon=data.horizon,
        classes=list(data.classes) or None,
        inputs=[spec.as_dict() for spec in task.inputs(data)],
        known=list(data.known),
        epochs_run=len(events.history["epoch"]),
        train_seconds=round(train_seconds, 2),
        parameters=int(model.count_params()),
        device=device,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        versions={
            "seqlab": seqlab.__version__,
            "keras": keras.__version__,
            "tensorflow": tf.__version__,
            "python": platform.python_version(),
        },
    )

    def fill(folder: Path) -> None:
        assets = task.save_assets(folder, data)  # inside the run folder: the signed manifest covers them
        write_json(folder / "spec.json", spec.to_dict())
        write_json(folder / "meta.json", dataclasses.replace(meta, assets=assets).to_dict())
        write_json(folder / "metrics.json", metrics)
        write_json(folder / "history.json", events.history)
        if name:
            write_name(folder, name)
        np.savez_compressed(folder / "predictions.npz", **evaluation.predictions)
        model.save(folder / "model.keras")
        emit({"type": "status", "message": "exporting the TensorFlow SavedModel"})
        try:
            task.export(model, data, folder / "savedmodel")
        except FILE_WRITE_ERRORS as err:  # TensorFlow's own writes report a full disk so, not as an OSError
            raise OSError(f"exporting the SavedModel failed: {err.message}") from err

    run_id = store.new_run_id(spec.dataset, spec.model)
    path = store.write(run_id, fill)
    run = store.read(run_id)
    emit({"type": "end", "status": status, "run_id": run_id, "path": str(path), **metrics})
    return run
