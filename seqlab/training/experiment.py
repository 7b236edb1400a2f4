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
The run folder also keeps TensorBoard event files (``seqlab.training.tensorboard_logs``);
``spec.devices`` splits every batch over several devices (``seqlab.training.devices``).
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

import seqlab
from seqlab.backend import backend_versions, installed
from seqlab.data import SequenceData, load_dataset
from seqlab.data.token_stream import TokenStream
from seqlab.late_export import export_in_tensorflow, file_write_errors
from seqlab.manifest import signing_key
from seqlab.models import build_model, get_architecture
from seqlab.models.task_model import EVAL_BATCH_SIZE
from seqlab.progress import listening
from seqlab.run_meta import RunMeta
from seqlab.run_name import check_name, write_name
from seqlab.run_owner import Ownership, check_owner, write_ownership
from seqlab.runs import Run, RunStore, write_json
from seqlab.tasks import get_task
from seqlab.training.devices import device_name, distribution_strategy, evaluation_batch_size, split_callbacks
from seqlab.training.events import EventCallback, EventHandler, ProgressEvents, status
from seqlab.training.identity import run_identity
from seqlab.training.optimizer import compile_model
from seqlab.training.spec import ExperimentSpec
from seqlab.training.stream_batches import StreamBatches
from seqlab.training.tensorboard_logs import FOLDER as TENSORBOARD, missing_reason, write_event_files
from seqlab.training.chunked_predictions import predicted_in_chunks


def shuffled_batches(inputs, y, batch_size: int, seed: int):
    """Endless batches of the windows, reshuffled every pass: a ``tf.data`` pipeline that prepares them ahead of
    the step that reads them (TensorFlow), or the same passes drawn by NumPy (another backend: no TensorFlow)."""
    rows = len(y)
    if keras.backend.backend() != "tensorflow":
        return numpy_passes(inputs, y, batch_size, seed)
    import tensorflow as tf

    data = tf.data.Dataset.from_tensor_slices((inputs, y))
    data = data.shuffle(rows, seed=seed, reshuffle_each_iteration=True).repeat()
    return data.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def numpy_passes(inputs, y, batch_size: int, seed: int):
    """Endless full batches of the windows, each pass in a new seeded order, as ``shuffled_batches``."""
    rng = np.random.default_rng(seed)
    while True:
        order = rng.permutation(len(y))
        for start in range(0, len(order) - batch_size + 1, batch_size):
            rows = order[start:start + batch_size]
            yield keras.tree.map_structure(lambda a: a[rows], inputs), y[rows]


def fit_of(spec: ExperimentSpec):
    """How ``spec`` trains: its architecture's own fit, truncated BPTT (TensorFlow only) or ``gradient_fit``."""
    own = get_architecture(spec.model).fit
    if own or not spec.tbptt:
        return own or gradient_fit
    if keras.backend.backend() != "tensorflow":
        raise ValueError(f"Truncated BPTT (tbptt={spec.tbptt}) trains with TensorFlow's gradient tape; under "
                         f"{keras.backend.backend()} leave tbptt unset, or train with --backend tensorflow.")
    from seqlab.training.tbptt import tbptt_fit

    return tbptt_fit


def gradient_fit(model: keras.Model, data: SequenceData, spec: ExperimentSpec, callbacks: list) -> None:
    """Mini-batch gradient descent on the training windows (full BPTT through each window).

    With a step budget (``spec.steps``) the batches come from ``shuffled_batches``
    and each of the ``epochs`` rounds runs ``steps / epochs`` of them, then validates. A token stream
    (language) is never cut into all its windows: each batch is drawn at random offsets (``StreamBatches``),
    as many windows an epoch as its stride gives, or ``steps / epochs`` batches.
    """
    train, val = data.splits["train"], data.splits["val"]
    val_batch = evaluation_batch_size(len(val.y), spec.devices, EVAL_BATCH_SIZE)
    if isinstance(train, TokenStream):
        batches = math.ceil(spec.steps / spec.epochs) if spec.steps else math.ceil(len(train) / spec.batch_size)
        model.fit(
            StreamBatches(train, spec.batch_size, batches, spec.seed),
            validation_data=(val.inputs, val.y),
            validation_batch_size=val_batch,
            epochs=spec.epochs,
            callbacks=callbacks,
            verbose=0,
        )
        return
    if spec.steps or spec.devices:  # split over devices: whole batches only, so each splits evenly
        passes = len(train.y) // spec.batch_size
        if not spec.steps and not passes:
            raise ValueError(f"batch_size {spec.batch_size} is more than the {len(train.y)} training windows: "
                             "no whole batch to split over the devices; give a smaller batch_size.")
        model.fit(
            shuffled_batches(train.inputs, train.y, spec.batch_size, spec.seed),
            validation_data=(val.inputs, val.y),
            validation_batch_size=val_batch,
            epochs=spec.epochs,
            steps_per_epoch=math.ceil(spec.steps / spec.epochs) if spec.steps else passes,
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


def compiled_model(
    spec: ExperimentSpec, data: SequenceData, store: RunStore | None = None, strategy=None
) -> keras.Model:
    """The spec's model for ``data``, compiled with its optimizer, loss, metrics and step options, its weights
    placed by ``strategy`` (default: ``spec.devices``'s); runs its options name (a pre-trained run) are read
    from ``store``, where this run will be written."""
    with (strategy or distribution_strategy(spec.devices)).scope():
        return compile_model(build_model(spec.model, data, spec.model_options, runs=store), spec, data)


def run_experiment(
    spec: ExperimentSpec,
    on_event: EventHandler | None = None,
    store: RunStore | None = None,
    cancel: threading.Event | None = None,
    name: str | None = None,
    owner: str | None = None,
    savedmodel: bool = True,
) -> Run:
    """Train ``spec``, evaluate against the baselines, and write the run folder (named ``name``, if given; owned
    by the browser session ``owner``, if given, from the moment it appears: ``seqlab.run_owner``). ``savedmodel``
    false leaves the SavedModel for later (``seqlab.late_export.add_savedmodel``): a translator's or a GPT's export
    traces every serving endpoint, seconds that a sweep's trials or a look at a run's curves never use."""
    emit = on_event or (lambda event: None)
    store = store or RunStore()
    spec = spec.resolved()
    name = check_name(name)  # a bad name fails now, not after training
    ownership = None if owner is None else Ownership(check_owner(owner))
    signing_key()  # a run is signed when written: an unwritable key folder fails now, not after training
    store.check_writable()  # so does a store below a file or a read-only one
    keras.utils.set_random_seed(spec.seed)
    emit(status("load", f"loading the {spec.dataset} dataset"))
    data = load_dataset(spec.dataset, **spec.data_options)
    identity = run_identity(spec, data)  # of the data as loaded, before anything trains on it
    no_tensorboard = missing_reason()
    for note in [*data.notes, *([no_tensorboard] if no_tensorboard else [])]:
        emit({"type": "note", "message": note})
    test = data.splits["test"]
    task = get_task(data.task)
    strategy = distribution_strategy(spec.devices)  # too many devices asked for: refused before building
    emit(status("build", "building and compiling the model"))
    model = compiled_model(spec, data, store, strategy)  # past max_parameters: refused while built, before training

    device = device_name(spec.devices)
    events = EventCallback(emit, cancel, device)
    # The task's first: events see their logs.
    callbacks = [*(task.callbacks(data) if task.callbacks else []), *split_callbacks(strategy), events]
    if spec.early_stopping:
        callbacks.append(
            keras.callbacks.EarlyStopping(patience=spec.early_stopping, restore_best_weights=True)
        )
    fit = fit_of(spec)
    started, started_at = time.monotonic(), time.time()
    with strategy.scope():  # JAX's DataParallel splits the batches it is given inside its scope
        fit(model, data, spec, callbacks)
    train_seconds = time.monotonic() - started

    emit(status("evaluate", "evaluating on the test split against the baselines"))
    with listening(ProgressEvents(emit, "evaluate")):  # the predictions' chunks and the baselines report
        evaluation = task.evaluate(data, predicted_in_chunks(task.predict, model, test.inputs))
    metrics = evaluation.metrics
    ended = "diverged" if events.diverged else "cancelled" if events.cancelled else "completed"
    meta = RunMeta(
        task=data.task,
        status=ended,
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
        identity=identity,
        savedmodel_later=not savedmodel,
        epochs_run=len(events.history["epoch"]),
        train_seconds=round(train_seconds, 2),
        parameters=int(model.count_params()),
        device=device,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        versions={
            "seqlab": seqlab.__version__,
            "keras": keras.__version__,
            **backend_versions(),
            "python": platform.python_version(),
        },
    )

    def fill(folder: Path) -> None:
        emit(status("export", "saving the run: its model, history and test predictions"))
        assets = task.save_assets(folder, data)  # inside the run folder: the signed manifest covers them
        write_json(folder / "spec.json", spec.to_dict())
        write_json(folder / "meta.json", dataclasses.replace(meta, assets=assets).to_dict())
        write_json(folder / "metrics.json", metrics)
        write_json(folder / "history.json", events.history)
        if not no_tensorboard:  # inside the run folder: the signed manifest covers the event files too
            write_event_files(folder / TENSORBOARD, events.history, started_at, model,
                              (data.tokenizer, data.target_tokenizer))
        if name:
            write_name(folder, name)
        if ownership:  # in the folder before it lands: no session ever sees the run as the server's
            write_ownership(folder, ownership)
        np.savez_compressed(folder / "predictions.npz", **evaluation.predictions)
        model.save(folder / "model.keras")
        if not savedmodel:  # the folder is named by the run's id
            emit({"type": "note", "message": "no SavedModel yet, as asked: make it when it is needed, on the "
                  f"Results page or with: python -m seqlab export {folder.name}"})
            return
        if keras.backend.backend() != "tensorflow":
            export_elsewhere(folder, emit)
            return
        emit(status("export", "exporting the TensorFlow SavedModel"))
        try:
            task.export(model, data, folder / "savedmodel")
        except file_write_errors() as err:  # TensorFlow's own writes report a full disk so, not as an OSError
            raise OSError(f"exporting the SavedModel failed: {err.message}") from err

    run_id = store.new_run_id(spec.dataset, spec.model)
    path = store.write(run_id, fill)
    run = store.read(run_id)
    emit({"type": "end", "status": ended, "run_id": run_id, "path": str(path), **metrics})
    return run


def export_elsewhere(folder: Path, emit: EventHandler) -> None:
    """The SavedModel of a run trained under another backend than TensorFlow: from its ``model.keras`` by a fresh
    TensorFlow-backend process where TensorFlow is installed; else a note says how to make it later."""
    if not installed("tensorflow"):
        emit({"type": "note", "message": "no SavedModel: TensorFlow is not installed here; make it later, where "
              f"it is, with: python -m seqlab export {folder.name}"})  # the folder is named by the run's id
        return
    emit(status("export", "exporting the TensorFlow SavedModel (in a TensorFlow process)"))
    export_in_tensorflow(folder)
