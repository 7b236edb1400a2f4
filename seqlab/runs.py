"""The run store: one folder per trained run under ``saved_models/``.

A run folder holds::

    spec.json         the ExperimentSpec (reproduce with it)
    meta.json         task, status, input shape, feature order, units, device, versions, time
    metrics.json      {"model": {...}, "baselines": {"naive": {...}, ...}} on the test split
    history.json      per-batch and per-epoch losses
    predictions.npz   test split: y_true, y_pred, origin, baseline_<name> (per task, see seqlab.tasks)
    model.keras       the Keras model (needs seqlab imported to load)
    savedmodel/       TensorFlow SavedModel, serves without seqlab

Writes are atomic: a run is assembled in a hidden ``.tmp-*`` folder and renamed
into place, so a crash never leaves a half-written run that breaks listing.
The root is ``$SEQLAB_RUNS_DIR`` if set, else ``./saved_models``.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import numpy as np

RUNS_DIR_ENV = "SEQLAB_RUNS_DIR"
REQUIRED_FILES = ("spec.json", "meta.json", "metrics.json")


def default_root() -> Path:
    return Path(os.environ.get(RUNS_DIR_ENV) or "saved_models")


@dataclass
class Run:
    """A finished run read back from its folder."""

    run_id: str
    path: Path
    spec: dict
    meta: dict
    metrics: dict
    history: dict = field(default_factory=dict)

    @property
    def status(self) -> str:
        return self.meta.get("status", "completed")

    @property
    def savedmodel_path(self) -> Path:
        return self.path / "savedmodel"

    @property
    def keras_path(self) -> Path:
        return self.path / "model.keras"

    def predictions(self) -> dict[str, np.ndarray]:
        with np.load(self.path / "predictions.npz") as data:
            return {k: data[k] for k in data.files}

    def load_model(self):
        """The Keras model (imports seqlab's layers first so custom layers resolve)."""
        import keras

        import seqlab.models  # noqa: F401  registers seqlab's layers for loading

        return keras.saving.load_model(self.keras_path)


class RunStore:
    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root is not None else default_root()

    def new_run_id(self, dataset: str, model: str) -> str:
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        return f"{stamp}-{dataset}-{model}-{secrets.token_hex(2)}"

    def write(self, run_id: str, fill: Callable[[Path], None]) -> Path:
        """Call ``fill(folder)`` on a hidden temporary folder, then rename it into place."""
        self.root.mkdir(parents=True, exist_ok=True)
        final = self.root / run_id
        if final.exists():
            raise ValueError(f"Run {run_id!r} already exists in {self.root}.")
        tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{run_id}-", dir=self.root))
        try:
            fill(tmp)
            tmp.chmod(0o755)  # mkdtemp makes it private; a run folder is as readable as any other
            os.replace(tmp, final)  # atomic on one file system
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return final

    def read(self, run_id: str) -> Run:
        path = self.root / run_id
        if run_id.startswith(".") or not path.is_dir():
            known = ", ".join(r.run_id for r in self.list()) or "none"
            raise ValueError(f"Unknown run {run_id!r} in {self.root}; runs: {known}.")
        missing = [f for f in REQUIRED_FILES if not (path / f).is_file()]
        if missing:
            raise ValueError(f"Run {run_id!r} is incomplete: {', '.join(missing)} missing.")
        try:
            loaded = {name: json.loads((path / f"{name}.json").read_text()) for name in ("spec", "meta", "metrics")}
            history_file = path / "history.json"
            history = json.loads(history_file.read_text()) if history_file.is_file() else {}
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise ValueError(f"Run {run_id!r} has a corrupt file: {err}.") from None
        return Run(run_id, path, loaded["spec"], loaded["meta"], loaded["metrics"], history)

    def list(self) -> list[Run]:
        """Readable runs, newest first. Unreadable folders are skipped (see ``broken``)."""
        return sorted(self._scan()[0], key=lambda r: r.meta.get("created", ""), reverse=True)

    def broken(self) -> dict[str, str]:
        """Folders that look like runs but cannot be read: name -> reason."""
        return self._scan()[1]

    def _scan(self) -> tuple[list[Run], dict[str, str]]:
        runs, broken = [], {}
        if not self.root.is_dir():
            return runs, broken
        for path in self.root.iterdir():
            if not path.is_dir() or path.name.startswith("."):
                continue
            try:
                runs.append(self.read(path.name))
            except ValueError as err:
                broken[path.name] = str(err)
        return runs, broken

    def delete(self, run_id: str) -> None:
        """Remove a run folder, readable or broken (a broken one can only be cleaned up this way)."""
        if run_id.startswith(".") or not (self.root / run_id).is_dir():
            raise ValueError(f"Unknown run {run_id!r} in {self.root}.")
        # Rename first so a half-deleted folder is hidden from listing at once.
        doomed = self.root / f".deleting-{run_id}-{secrets.token_hex(2)}"
        os.replace(self.root / run_id, doomed)
        shutil.rmtree(doomed, ignore_errors=True)


def write_json(path: Path, value) -> None:
    path.write_text(json.dumps(value, indent=2, sort_keys=True, default=_json_default))


def _json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")
