"""run_experiment: spec in, trained and exported run folder out.

    spec --load_dataset--> SequenceData --build_model--> keras.Model --fit--> Run

Progress leaves only through ``on_event`` (see ``seqlab.training.events``);
a set ``cancel`` flag stops training within one batch and the run is still
written, marked ``cancelled``.
"""

from __future__ import annotations

import platform
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

import seqlab
from seqlab.data import load_dataset
from seqlab.forecasting import baseline_forecasts, forecast_metrics
from seqlab.models import build_model
from seqlab.runs import Run, RunStore, write_json
from seqlab.training.devices import device_name, distribution_strategy
from seqlab.training.events import EventCallback, EventHandler
from seqlab.training.spec import ExperimentSpec


def make_optimizer(spec: ExperimentSpec) -> keras.optimizers.Optimizer:
    classes = {
        "adam": keras.optimizers.Adam,
        "adamw": keras.optimizers.AdamW,
        "rmsprop": keras.optimizers.RMSprop,
        "sgd": keras.optimizers.SGD,
    }
    return classes[spec.optimizer](learning_rate=spec.learning_rate, global_clipnorm=spec.clip_norm)


def run_experiment(
    spec: ExperimentSpec,
    on_event: EventHandler | None = None,
    store: RunStore | None = None,
    cancel: threading.Event | None = None,
) -> Run:
    """Train ``spec``, evaluate against the baselines, and write the run folder."""
    emit = on_event or (lambda event: None)
    store = store or RunStore()
    spec = spec.resolved()
    keras.utils.set_random_seed(spec.seed)
    data = load_dataset(spec.dataset, **spec.data_options)
    train, val, test = (data.splits[k] for k in ("train", "val", "test"))
    if len(train) == 0 or len(val) == 0 or len(test) == 0:
        raise ValueError(
            f"A split has no windows (train {len(train)}, val {len(val)}, test {len(test)}); "
            "use a shorter lookback or horizon, or a smaller stride."
        )

    with distribution_strategy().scope():
        model = build_model(spec.model, data, spec.model_options)
        model.compile(optimizer=make_optimizer(spec), loss="mse", metrics=["mae"])

    device = device_name()
    steps = int(np.ceil(len(train) / spec.batch_size))
    emit({"type": "start", "epochs": spec.epochs, "steps_per_epoch": steps, "device": device})
    events = EventCallback(emit, cancel)
    callbacks = [events]
    if spec.early_stopping:
        callbacks.append(
            keras.callbacks.EarlyStopping(patience=spec.early_stopping, restore_best_weights=True)
        )
    started = time.monotonic()
    model.fit(
        train.x,
        train.y,
        validation_data=(val.x, val.y),
        epochs=spec.epochs,
        batch_size=spec.batch_size,
        callbacks=callbacks,
        verbose=0,
    )
    train_seconds = time.monotonic() - started

    emit({"type": "status", "message": "evaluating on the test split against the baselines"})
    forecast = model.predict(test.x, batch_size=256, verbose=0)
    baselines = baseline_forecasts(data.target_series, test.origin, data.horizon, data.seasons)
    metrics = {
        "model": forecast_metrics(test.y, forecast),
        "baselines": {name: forecast_metrics(test.y, f) for name, f in baselines.items()},
    }
    status = "cancelled" if events.cancelled else "completed"
    meta = {
        "task": data.task,
        "status": status,
        "dataset": data.name,
        "model": spec.model,
        "input_shape": list(data.input_shape),
        "features": list(data.features),
        "target": data.target,
        "units": data.units,
        "lookback": data.lookback,
        "horizon": data.horizon,
        "epochs_run": len(events.history["epoch"]),
        "train_seconds": round(train_seconds, 2),
        "parameters": int(model.count_params()),
        "device": device,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "versions": {
            "seqlab": seqlab.__version__,
            "keras": keras.__version__,
            "tensorflow": tf.__version__,
            "python": platform.python_version(),
        },
    }

    def fill(folder: Path) -> None:
        write_json(folder / "spec.json", spec.to_dict())
        write_json(folder / "meta.json", meta)
        write_json(folder / "metrics.json", metrics)
        write_json(folder / "history.json", events.history)
        np.savez_compressed(
            folder / "predictions.npz",
            y_true=test.y,
            y_pred=forecast,
            origin=test.origin,
            **{f"baseline_{k}": v for k, v in baselines.items()},
        )
        model.save(folder / "model.keras")
        emit({"type": "status", "message": "exporting the TensorFlow SavedModel"})
        model.export(str(folder / "savedmodel"), verbose=False)

    run_id = store.new_run_id(spec.dataset, spec.model)
    path = store.write(run_id, fill)
    run = store.read(run_id)
    emit({"type": "end", "status": status, "run_id": run_id, "path": str(path), **metrics})
    return run
