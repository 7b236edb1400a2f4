"""The run store: one folder per trained run under ``saved_models/``.

A run folder holds::

    spec.json         the ExperimentSpec (reproduce with it)
    meta.json         task, status, input shape, feature order, units, device, versions, time (``RunMeta``)
    metrics.json      {"model": {...}, "baselines": {"naive": {...}, ...}} on the test split
    history.json      per-batch and per-epoch losses
    predictions.npz   test split: y_true, y_pred, origin, baseline_<name> (per task, see seqlab.tasks)
    model.keras       the Keras model (``import seqlab`` registers its classes)
    savedmodel/       TensorFlow SavedModel, serves without seqlab
    manifest.json     SHA-256 of every file above, signed with this user's key (``seqlab.manifest``); an
                      imported run's marks it imported, inside the signature (``seqlab.run_import``)
    name.json         the user's name for the run, if any (``seqlab.run_name``; unsigned, ``rename`` changes it)

A run id is a plain folder name directly under the root: ``path_of`` refuses
anything else (``..``, absolute paths, links, long names), and reading,
deleting and exporting all go through it.

Writes are atomic and durable: a run is assembled in a hidden ``.tmp-*``
folder, every file is fsynced, the manifest written, and the folder renamed
into place (then the root fsynced), so a crash never leaves a half-written run
that breaks listing. Deleting renames to ``.deleting-*`` first. Leftovers of
either after a crash are removed by ``sweep``, which never touches a folder a
live writer or deleter holds locked (an exclusive ``flock`` on the folder).

Unreadable folders (bad JSON, JSON of the wrong shape, a damaged model, files
that differ from the manifest) are listed by ``broken`` with the reason and
can still be deleted. The root is ``$SEQLAB_RUNS_DIR`` if set, else ``./saved_models``.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import re
import secrets
import shutil
import tempfile
import time
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import numpy as np

from seqlab.manifest import imported_from, inconsistency, write_manifest
from seqlab.run_meta import RunMeta, check_history, check_metrics, check_spec
from seqlab.run_name import NAME_FILE, check_name, read_name, write_name

RUNS_DIR_ENV = "SEQLAB_RUNS_DIR"
REQUIRED_FILES = ("spec.json", "meta.json", "metrics.json", "model.keras", "savedmodel/saved_model.pb")
RUN_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")
LEFTOVER_PREFIXES = (".tmp-", ".deleting-")
SWEEP_GRACE_SECONDS = 3600


def default_root() -> Path:
    return Path(os.environ.get(RUNS_DIR_ENV) or "saved_models")


@dataclass
class Run:
    """A finished run read back from its folder."""

    run_id: str
    path: Path
    spec: dict
    meta: RunMeta
    metrics: dict
    history: dict = field(default_factory=dict)
    name: str | None = None  # the user's name for it (``name.json``), ``None`` when it has none
    imported: dict | None = None  # where an imported run came from (``seqlab.run_import``); ``None``: trained here

    @property
    def status(self) -> str:
        return self.meta.status

    @property
    def savedmodel_path(self) -> Path:
        return self.path / "savedmodel"

    @property
    def keras_path(self) -> Path:
        return self.path / "model.keras"

    def exists(self) -> bool:
        """Whether the run's folder is still there (a page may hold a run deleted since)."""
        return self.path.is_dir()

    def predictions(self) -> dict[str, np.ndarray]:
        with np.load(self.path / "predictions.npz") as data:
            return {k: data[k] for k in data.files}

    def load_model(self):
        """The Keras model, checked: only Keras's and seqlab's classes, and shapes that fit this run."""
        from seqlab.keras_file import load_keras  # imports Keras: only when a model is loaded

        return load_keras(self.keras_path, self.meta)

    def load_tokenizer(self, asset: str = "tokenizer"):
        """The tokeniser a text run kept (``tokenizer.json``; ``asset="target_tokenizer"``: a translation run's
        target side); ``ValueError`` for a run that keeps none (it reads numbers)."""
        from seqlab.tasks import get_task

        found = get_task(self.meta.task).load_assets(self.path).get(asset)
        if found is None:
            what = asset.replace("tokenizer", "tokeniser").replace("_", " ")
            why = "it reads numbers, not text" if asset == "tokenizer" else "it is no translation run"
            raise ValueError(f"Run {self.run_id!r} keeps no {what}: {why}.")
        return found


@contextmanager
def _locked(folder: Path, blocking: bool = True):
    """Hold an exclusive ``flock`` on ``folder`` itself (it follows the folder through a rename)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(folder: Path) -> None:
    """Every file and folder under ``folder`` (links are not followed), then ``folder`` itself."""
    for parent, dirs, files in os.walk(folder, topdown=False):
        for name in files:
            if not os.path.islink(os.path.join(parent, name)):
                _fsync(Path(parent) / name)
        _fsync(Path(parent))


class RunStore:
    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root is not None else default_root()

    def new_run_id(self, dataset: str, model: str) -> str:
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        return f"{stamp}-{dataset}-{model}-{secrets.token_hex(2)}"

    def path_of(self, run_id: str) -> Path:
        """The folder of run ``run_id``, checked to lie directly inside the root (it need not exist).

        Raises ``ValueError`` for anything but a plain folder name (letters,
        digits, ``._-``, not starting with a dot, at most 128 characters) and
        for a link (deleting through one would remove what it points to).
        """
        if not isinstance(run_id, str) or not RUN_ID.fullmatch(run_id):
            raise ValueError(
                f"{run_id!r:.80} is not a run id: a run id is a folder name of letters, digits, '.', '_' and '-' "
                "(not starting with '.', at most 128 characters); list them with: python -m seqlab runs"
            )
        root = self.root.resolve()
        path = root / run_id
        if path.is_symlink() or path.resolve().parent != root:
            raise ValueError(
                f"Run {run_id!r} in {self.root} is a link to {path.resolve()}; seqlab does not follow links in "
                "the runs folder (they can lead outside it). Remove the link by hand if it is not yours."
            )
        return path

    def write(self, run_id: str, fill: Callable[[Path], None], imported: dict | None = None) -> Path:
        """Call ``fill(folder)`` on a hidden, locked temporary folder; sign, fsync and rename it into place.

        ``imported``: where a run from elsewhere came from, signed into its manifest so that
        its SavedModel is never trusted without asking (``seqlab.manifest``).
        """
        self.root.mkdir(parents=True, exist_ok=True)
        final = self.path_of(run_id)
        if final.exists():
            raise ValueError(f"Run {run_id!r} already exists in {self.root}.")
        tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{run_id}-", dir=self.root))
        try:
            with _locked(tmp):  # sweep never takes a folder that is being filled
                fill(tmp)
                write_manifest(tmp, imported)
                tmp.chmod(0o755)  # mkdtemp makes it private; a run folder is as readable as any other
                _fsync_tree(tmp)
                os.replace(tmp, final)  # atomic on one file system
            _fsync(self.root)  # the rename itself survives a power cut
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return final

    def read(self, run_id: str) -> Run:
        """The run ``run_id``; ``ValueError`` naming the problem if it is unknown or not a readable run."""
        path = self.path_of(run_id)
        if not path.is_dir():
            known = ", ".join(r.run_id for r in self.list()) or "none"
            raise ValueError(f"Unknown run {run_id!r} in {self.root}; runs: {known}.")
        try:
            spec, meta, metrics, history = run_files(path)
            run = Run(run_id, path, spec, meta, metrics, history, read_name(path), imported_from(path))
            problem = inconsistency(path) or _model_problem(path)
        except ValueError as err:
            raise ValueError(f"Run {run_id!r}: {err}") from None
        if problem:
            raise ValueError(f"Run {run_id!r}: {problem}; delete the run or train it again.")
        return run

    def rename(self, run_id: str, name: str | None) -> None:
        """Give run ``run_id`` the name ``name`` (checked by ``check_name``; ``None`` or blank: no name).

        Atomic: the new ``name.json`` is written and fsynced in a hidden folder,
        then renamed over the old one; nothing else in the run changes.
        """
        name = check_name(name)
        path = self.path_of(run_id)
        if not path.is_dir():
            raise ValueError(f"Unknown run {run_id!r} in {self.root}.")
        tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{run_id}-", dir=self.root))
        try:
            with _locked(tmp), _locked(path):  # sweep leaves the staged file alone; a delete waits
                write_name(tmp, name)
                _fsync(tmp / NAME_FILE)
                os.replace(tmp / NAME_FILE, path / NAME_FILE)
                _fsync(path)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def scan(self) -> tuple[list[Run], dict[str, str]]:
        """Readable runs (newest first) and broken folders (name -> reason), in one pass over the root."""
        self.sweep()
        runs, broken = [], {}
        if not self.root.is_dir():
            return runs, broken
        for path in self.root.iterdir():
            if path.name.startswith(".") or not path.is_dir():
                continue
            try:
                runs.append(self.read(path.name))
            except (ValueError, OSError) as err:
                broken[path.name] = str(err)
        return sorted(runs, key=lambda r: r.meta.created, reverse=True), broken

    def list(self) -> list[Run]:
        """Readable runs, newest first. Unreadable folders are skipped (see ``broken``)."""
        return self.scan()[0]

    def broken(self) -> dict[str, str]:
        """Folders that look like runs but cannot be read: name -> reason."""
        return self.scan()[1]

    def delete(self, run_id: str) -> None:
        """Remove a run folder, readable or broken (a broken one can only be cleaned up this way)."""
        path = self.path_of(run_id)
        if not path.is_dir():
            raise ValueError(f"Unknown run {run_id!r} in {self.root}.")
        with _locked(path):  # sweep leaves it alone until it is gone
            # Rename first so a half-deleted folder is hidden from listing at once.
            doomed = path.with_name(f".deleting-{run_id}-{secrets.token_hex(2)}")
            os.replace(path, doomed)
            shutil.rmtree(doomed, ignore_errors=True)

    def sweep(self, grace_seconds: float = SWEEP_GRACE_SECONDS) -> list[str]:
        """Remove ``.tmp-*`` and ``.deleting-*`` folders left by a crash; the names removed.

        Only folders untouched for ``grace_seconds`` and not locked by a live
        writer or deleter; links are never followed.
        """
        removed = []
        if not self.root.is_dir():
            return removed
        cutoff = time.time() - grace_seconds
        for path in self.root.iterdir():
            if not path.name.startswith(LEFTOVER_PREFIXES):
                continue
            try:
                if path.is_symlink() or not path.is_dir() or path.lstat().st_mtime > cutoff:
                    continue
                with _locked(path, blocking=False):
                    shutil.rmtree(path)
            except OSError:  # locked by a live writer, gone meanwhile, or not ours to remove
                continue
            removed.append(path.name)
        return removed


def run_files(folder: Path) -> tuple[dict, RunMeta, dict, dict]:
    """A run folder's ``spec.json``, ``meta.json`` (a ``RunMeta``), ``metrics.json`` and ``history.json``
    (``{}`` when absent), each checked; ``ValueError`` naming the missing, corrupt or wrongly shaped file."""
    missing = [f for f in REQUIRED_FILES if not (folder / f).is_file()]
    if missing:
        raise ValueError(f"incomplete, {', '.join(missing)} missing.")
    try:
        loaded = {name: json.loads((folder / f"{name}.json").read_text()) for name in ("spec", "meta", "metrics")}
        history_file = folder / "history.json"
        history = json.loads(history_file.read_text()) if history_file.is_file() else {}
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise ValueError(f"corrupt file: {err}.") from None
    meta = RunMeta.from_dict(loaded["meta"])
    return check_spec(loaded["spec"]), meta, check_metrics(loaded["metrics"]), check_history(history)


def _model_problem(folder: Path) -> str | None:
    """Cheap: ``model.keras`` must be a zip archive with a model config (a truncated one is not)."""
    try:
        with zipfile.ZipFile(folder / "model.keras") as archive:
            archive.getinfo("config.json")
    except (OSError, KeyError, zipfile.BadZipFile):
        return "model.keras is damaged (not a Keras archive with a config.json)"
    return None


def write_json(path: Path, value) -> None:
    # Strict JSON: a diverged run's NaN or infinite losses and metrics are written as null.
    path.write_text(json.dumps(json_safe(value), indent=2, sort_keys=True, allow_nan=False))


def json_safe(value):
    """``value`` with NumPy values as Python ones and NaN or infinite floats as ``None`` (JSON's null)."""
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value
