"""Export a run (SavedModel, .keras, zip) and serve its SavedModel.

The SavedModel takes sequences ``(N, T, F)`` in the data's own units, features
in the order of ``meta.json["features"]``, and returns what the task predicts:
``(N, H)`` forecasts or regression values, ``(N, C)`` class probabilities
(classify), ``(N, T, C)`` per-step class probabilities (label; class names in
``meta.json["classes"]``). It serves in a process that never imports seqlab:

    import tensorflow as tf
    served = tf.saved_model.load("saved_models/<run_id>/savedmodel")
    forecast = served.serve(tf.constant(window, tf.float32))
"""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from seqlab.runs import Run

FORMATS = ("savedmodel", "keras", "zip")
ZIP_FILES = ("model.keras", "spec.json", "meta.json", "metrics.json")


def zip_bytes(run: Run) -> bytes:
    """The SavedModel folder, ``model.keras`` and the run's JSON files, zipped in memory."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in ZIP_FILES:
            archive.write(run.path / name, f"{run.run_id}/{name}")
        for file in sorted(run.savedmodel_path.rglob("*")):
            if file.is_file():
                archive.write(file, f"{run.run_id}/savedmodel/{file.relative_to(run.savedmodel_path)}")
    return buffer.getvalue()


def export_run(run: Run, fmt: str, to: str | Path) -> Path:
    """Copy the run's model to ``to`` as a SavedModel folder, a ``.keras`` file or a zip."""
    if fmt not in FORMATS:
        raise ValueError(f"Unknown export format {fmt!r}; valid formats: {', '.join(FORMATS)}.")
    to = Path(to)
    if to.exists():
        raise ValueError(f"{to} already exists; choose a new path or delete it first.")
    to.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "savedmodel":
        shutil.copytree(run.savedmodel_path, to)
    elif fmt == "keras":
        shutil.copyfile(run.keras_path, to)
    else:
        to.write_bytes(zip_bytes(run))
    return to


def load_serving(path: str | Path):
    """Load a SavedModel and return ``f(windows) -> forecasts`` on NumPy arrays."""
    import tensorflow as tf

    try:
        served = tf.saved_model.load(str(path))
    except (OSError, ValueError, tf.errors.OpError) as err:
        raise ValueError(f"{path} is not a readable SavedModel ({type(err).__name__}).") from None

    def serve(windows: np.ndarray) -> np.ndarray:
        return served.serve(tf.constant(np.asarray(windows, dtype="float32"))).numpy()

    return serve


def windows_from_frame(run: Run, frame: pd.DataFrame) -> np.ndarray:
    """The last ``lookback`` rows of ``frame`` as one window ``(1, T, F)``, checked (forecast runs)."""
    task = run.meta.get("task", "forecast")
    if task != "forecast":
        raise ValueError(
            f"Predicting from a table of recent rows needs a forecast run; run {run.run_id!r} is a {task} "
            "run: load its SavedModel (load_serving) and call it on (N, T, F) sequences."
        )
    features, lookback = run.meta["features"], run.meta["lookback"]
    missing = [c for c in features if c not in frame.columns]
    if missing:
        raise ValueError(
            f"The input lacks column(s) {missing}; the model needs {features} "
            f"(in that order, {lookback} rows or more)."
        )
    if len(frame) < lookback:
        raise ValueError(f"The input has {len(frame)} rows; the model needs at least {lookback}.")
    values = frame.loc[:, features].tail(lookback)
    non_numeric = [c for c in features if not pd.api.types.is_numeric_dtype(values[c])]
    if non_numeric:
        raise ValueError(f"Column(s) {non_numeric} are not numeric; fix the file and retry.")
    window = values.to_numpy(dtype="float32")
    if not np.isfinite(window).all():
        raise ValueError("The last rows of the input contain NaN or infinite values; fill them first.")
    return window[None]


def predict_frame(run: Run, frame: pd.DataFrame) -> pd.DataFrame:
    """Forecast the ``horizon`` steps after the end of ``frame`` with the run's SavedModel."""
    windows = windows_from_frame(run, frame)  # check the input before loading the model
    forecast = load_serving(run.savedmodel_path)(windows)[0]
    return pd.DataFrame({"step": np.arange(1, len(forecast) + 1), run.meta["target"]: forecast})


def read_csv(path: str | Path) -> pd.DataFrame:
    """Read a CSV, turning parser failures into a clear ``ValueError``."""
    try:
        return pd.read_csv(path)
    except FileNotFoundError:
        raise ValueError(f"No such file: {path}.") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise ValueError(f"{path} is not a readable CSV file: {err}.") from None
