"""The SavedModel of a run trained under another Keras backend (JAX), written by TensorFlow from ``model.keras``.

A SavedModel is TensorFlow's format, and its endpoints (the tokeniser in the
graph, generation) are TensorFlow functions: a model trained under JAX is
saved as ``model.keras`` and exported by a TensorFlow-backend process, the
same ``task.export`` as a run trained under TensorFlow.

- While the run is written, where TensorFlow is installed: ``export_in_tensorflow``
  starts ``python -m seqlab.late_export FOLDER`` on the unsigned folder.
- Later, for a run written where TensorFlow was missing:
  ``python -m seqlab export RUN_ID`` (``add_savedmodel``) writes it into the run
  folder under a hidden name, renames it into place and signs the folder anew.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

from seqlab.backend import BACKEND_ENV, choose_backend
from seqlab.manifest import write_manifest
from seqlab.runs import Run, run_files

SAVEDMODEL = "savedmodel"


def file_write_errors() -> tuple[type[Exception], ...]:
    """How TensorFlow's file writes fail on a full disk (ENOSPC), a file size limit (EFBIG) or a refused write."""
    import tensorflow as tf

    return (tf.errors.ResourceExhaustedError, tf.errors.OutOfRangeError, tf.errors.PermissionDeniedError)


def write_savedmodel(folder: Path, to: Path) -> None:
    """Export the run in ``folder`` (its ``model.keras``, spec and data) as a SavedModel at ``to`` (TensorFlow)."""
    import keras

    from seqlab.data import load_dataset
    from seqlab.keras_file import load_keras
    from seqlab.models.registry import built_as
    from seqlab.tasks import get_task

    if keras.backend.backend() != "tensorflow":
        raise ValueError(f"A SavedModel is written under the TensorFlow backend, not {keras.backend.backend()}: "
                         "run python -m seqlab export RUN_ID.")
    spec, meta, _, _ = run_files(folder)
    keras.utils.set_random_seed(spec["seed"])  # the data as the run loaded it
    data = load_dataset(spec["dataset"], **spec.get("data_options", {}))
    model = built_as(load_keras(folder / "model.keras", meta), meta.model)
    try:
        get_task(meta.task).export(model, data, to)
    except file_write_errors() as err:  # TensorFlow's own writes report a full disk so, not as an OSError
        raise OSError(f"exporting the SavedModel failed: {err.message}") from err


def export_in_tensorflow(folder: Path) -> None:
    """Write ``folder/savedmodel`` in a fresh TensorFlow-backend process; ``OSError`` with its last words if not."""
    env = {**os.environ, BACKEND_ENV: "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run([sys.executable, "-m", "seqlab.late_export", str(folder)], env=env, capture_output=True,
                          text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise OSError(f"exporting the SavedModel in a TensorFlow process failed: {last}")


def add_savedmodel(run: Run) -> Path:
    """Write the SavedModel that ``run`` lacks into its folder and sign the folder again; the path written."""
    final = run.savedmodel_path
    if os.path.lexists(final):
        raise ValueError(f"Run {run.run_id!r} already has a SavedModel; copy it out with --format savedmodel --to PATH.")
    choose_backend("tensorflow")
    staging = run.path / f".{SAVEDMODEL}-{secrets.token_hex(4)}"  # a failed write leaves no partial savedmodel/
    try:
        write_savedmodel(run.path, staging)
        os.rename(staging, final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    write_manifest(run.path, run.imported)  # the folder, with its new SavedModel, as seqlab wrote it
    return final


if __name__ == "__main__":
    write_savedmodel(Path(sys.argv[1]), Path(sys.argv[1]) / SAVEDMODEL)
