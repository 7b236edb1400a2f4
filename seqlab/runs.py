"""The run store: one folder per trained run under ``saved_models/``.

A run folder holds::

    spec.json         the ExperimentSpec (reproduce with it)
    meta.json         task, status, input shape, feature order, units, device, versions, time (``RunMeta``)
    metrics.json      {"model": {...}, "baselines": {"naive": {...}, ...}} on the test split
    history.json      per-batch and per-epoch losses
    predictions.npz   test split: y_true, y_pred, origin, baseline_<name> (per task, see seqlab.tasks)
    model.keras       the Keras model (``import seqlab`` registers its classes)
    savedmodel/       TensorFlow SavedModel, serves without seqlab
    tensorboard/      TensorBoard event files and projector data (``seqlab.training.tensorboard_logs``)
    manifest.json     SHA-256 of every file above, signed with this user's key (``seqlab.manifest``); an
                      imported run's marks it imported, inside the signature (``seqlab.run_import``)
    name.json         the user's name for the run, if any (``seqlab.run_name``; unsigned, ``rename`` changes it)
    owner.json        the browser session it belongs to and whether it is shared, if any (``seqlab.run_owner``;
                      unsigned, ``set_ownership`` changes it)

A run id is a plain folder name directly under the root: ``path_of`` refuses
anything else (``..``, absolute paths, links, long names), and reading,
deleting and exporting all go through it.

Writes are atomic and durable: a run is assembled in a hidden, marked scratch
folder (``seqlab.scratch``), every file is fsynced, the manifest written, and
the run renamed into place (then the root fsynced), so a crash never leaves a
half-written run that breaks listing; a failed write (a full disk) keeps
nothing. Deleting moves the run into a scratch folder first. Leftovers of
either after a crash are removed by ``sweep``: only seqlab's own scratch
folders, only in a folder marked as a run store, only on a writing call
(``write``, ``delete``; listing never sweeps), never one a live writer or
deleter holds locked (an exclusive ``flock`` on the folder).

Every file of a run is read through the input gate (``seqlab.inputs``: a
regular file, never a pipe that would block), its JSON within the bounds of
``seqlab.bounded_json``. Unreadable folders (bad or too deeply nested JSON, JSON
of the wrong shape, a damaged model, a pipe or device among the files, files
whose set, sizes or SHA-256 differ from the manifest) are listed by ``broken``
with the reason and can still be deleted. The root is ``$SEQLAB_RUNS_DIR`` if set, else ``./saved_models``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import re
import secrets
import shutil
import stat
import time
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import numpy as np

from seqlab.bounded_json import HISTORY_BYTES, RECORD_BYTES, read_json
from seqlab.inputs import open_regular
from seqlab.manifest import imported_from, inconsistency, write_manifest
from seqlab.run_meta import RunMeta, check_history, check_metrics
from seqlab.run_name import NAME_FILE, check_name, read_name, write_name
from seqlab.run_owner import OWNER_FILE, Ownership, read_ownership, write_ownership
from seqlab.scratch import STORE_MARK, claims_store, is_scratch, is_store, make_scratch, mark_store
from seqlab.training.spec import check_spec

RUNS_DIR_ENV = "SEQLAB_RUNS_DIR"
SAVEDMODEL_FILE = "savedmodel/saved_model.pb"
REQUIRED_FILES = ("spec.json", "meta.json", "metrics.json", "model.keras", SAVEDMODEL_FILE)
RUN_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")
SWEEP_GRACE_SECONDS = 3600
FINISHED = ("completed", "diverged")  # trained to its end: a cancelled run stopped early


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
    ownership: Ownership = field(default_factory=Ownership)  # ``owner.json``: the local user's when it has none

    @property
    def status(self) -> str:
        return self.meta.status

    @property
    def savedmodel_path(self) -> Path:
        return self.path / "savedmodel"

    @property
    def has_savedmodel(self) -> bool:
        """Whether the SavedModel is there: a run trained without it (``RunMeta.savedmodel_later``) has it made
        when asked for (``seqlab.late_export.add_savedmodel``)."""
        return os.path.lexists(self.path / SAVEDMODEL_FILE)

    @property
    def keras_path(self) -> Path:
        return self.path / "model.keras"

    def exists(self) -> bool:
        """Whether the run's folder is still there (a page may hold a run deleted since)."""
        return self.path.is_dir()

    def predictions(self) -> dict[str, np.ndarray]:
        with open_regular(self.path / "predictions.npz", what="run file") as file, np.load(file) as data:
            return {k: data[k] for k in data.files}

    def load_model(self):
        """The Keras model, checked: only Keras's and seqlab's classes, and shapes that fit this run."""
        from seqlab.keras_file import load_keras  # imports Keras: only when a model is loaded
        from seqlab.models.registry import built_as

        return built_as(load_keras(self.keras_path, self.meta), self.meta.model)  # its steps: its architecture's

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
        final = self.path_of(run_id)
        if final.exists():
            raise ValueError(f"Run {run_id!r} already exists in {self.root}.")
        created, marked = not os.path.lexists(self.root), False
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            # Marked before the run lands: a crash while writing leaves a scratch folder that the next write sweeps.
            marked = claims_store(self.root, created, _holds_run) and mark_store(self.root)
            self.sweep()
            scratch = make_scratch(self.root)
            try:
                with _locked(scratch):  # sweep never takes a folder that is being filled
                    tmp = scratch / run_id
                    tmp.mkdir()
                    fill(tmp)
                    write_manifest(tmp, imported)
                    tmp.chmod(0o755)  # a run folder is as readable as any other
                    _fsync_tree(tmp)
                    os.replace(tmp, final)  # atomic on one file system
                _fsync(self.root)  # the rename itself survives a power cut
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
        except BaseException as err:
            with contextlib.suppress(OSError):  # nothing left behind: not even the mark or folder this call made
                if marked:
                    (self.root / STORE_MARK).unlink()
                if created:
                    self.root.rmdir()
            if not isinstance(err, OSError):
                raise
            reason = err.strerror or str(err)  # a full disk, a read-only store: one clear line, nothing kept
            raise ValueError(f"Could not write run {run_id!r} to {self.root}: {reason}; nothing of it was kept "
                             "(free some space, or choose another runs folder).") from err
        return final

    def check_writable(self) -> None:
        """``ValueError`` now, before any training, if no run could be written to the store: the root, or the
        nearest folder above it that exists (where it would be made), is no folder, read-only or not writable."""
        root = self.root.absolute()
        existing = next(p for p in (root, *root.parents) if os.path.lexists(p))
        if not existing.is_dir():
            where = "" if existing == root else f" cannot be made below {existing}, which"
            raise ValueError(f"The run store {self.root}{where} is a file, not a folder; choose a folder as the "
                             "runs folder (--runs-dir or $SEQLAB_RUNS_DIR).")
        if not os.access(existing, os.W_OK | os.X_OK):
            raise ValueError(f"The run store {self.root} is not writable ({existing} is read-only or not yours to "
                             "write): choose another runs folder (--runs-dir or $SEQLAB_RUNS_DIR) or fix its "
                             "permissions.")

    def read(self, run_id: str) -> Run:
        """The run ``run_id``; ``ValueError`` naming the problem if it is unknown or not a readable run."""
        path = self.path_of(run_id)
        if not path.is_dir():
            known = ", ".join(r.run_id for r in self.list()) or "none"
            raise ValueError(f"Unknown run {run_id!r} in {self.root}; runs: {known}.")
        try:
            _check_plain_files(path)  # before anything is opened: a pipe would block the reader
            spec, meta, metrics, history = run_files(path)
            run = Run(run_id, path, spec, meta, metrics, history, read_name(path), imported_from(path),
                      read_ownership(path))
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
        self._replace_label(run_id, NAME_FILE, lambda folder: write_name(folder, name))

    def set_ownership(self, run_id: str, ownership: Ownership) -> None:
        """Record who run ``run_id`` belongs to and whether it is shared (``seqlab.run_owner``), atomically as
        ``rename``; the rights to do so are ``seqlab.ownership``'s to check."""
        self._replace_label(run_id, OWNER_FILE, lambda folder: write_ownership(folder, ownership))

    def _replace_label(self, run_id: str, file: str, write: Callable[[Path], None]) -> None:
        """Replace the unsigned ``file`` of run ``run_id`` by what ``write(folder)`` puts in a hidden folder:
        written and fsynced there, then renamed over the old one; nothing else in the run changes."""
        path = self.path_of(run_id)
        if not path.is_dir():
            raise ValueError(f"Unknown run {run_id!r} in {self.root}.")
        tmp = make_scratch(self.root)
        try:
            with _locked(tmp), _locked(path):  # sweep leaves the staged file alone; a delete waits
                write(tmp)
                _fsync(tmp / file)
                os.replace(tmp / file, path / file)
                _fsync(path)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def scan(self) -> tuple[list[Run], dict[str, str]]:
        """Readable runs (newest first; runs created in the same second by id, not by the file system's order) and
        broken folders (name -> reason), in one pass over the root (read-only: it never sweeps)."""
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
        return sorted(runs, key=lambda r: (r.meta.created, r.run_id), reverse=True), broken

    def list(self) -> list[Run]:
        """Readable runs, newest first. Unreadable folders are skipped (see ``broken``)."""
        return self.scan()[0]

    def broken(self) -> dict[str, str]:
        """Folders that look like runs but cannot be read: name -> reason."""
        return self.scan()[1]

    def find_identical(self, identity: str) -> Run | None:
        """The newest run trained here with ``identity`` (``seqlab.training.identity``) that finished training
        (not cancelled) and reads back whole; ``None`` when there is none. An imported run is never served: it was
        trained elsewhere.

        Only each folder's ``meta.json`` is read to find the candidates; the one served is read and checked whole.
        """
        candidates = []
        for path in self.root.iterdir() if self.root.is_dir() else ():
            if path.name.startswith(".") or not path.is_dir():
                continue
            try:
                meta = read_json(path / "meta.json", "meta.json", RECORD_BYTES)
            except (ValueError, OSError):  # broken: ``broken`` says why
                continue
            if isinstance(meta, dict) and meta.get("identity") == identity and meta.get("status") in FINISHED:
                candidates.append((str(meta.get("created")), path.name))
        for _, run_id in sorted(candidates, reverse=True):
            try:
                run = self.read(run_id)
            except (ValueError, OSError):
                continue
            if run.imported is None and run.meta.identity == identity and run.status in FINISHED:
                return run
        return None

    def listed_path(self, name: str) -> Path:
        """The folder the listing names ``name``: a run id (``path_of``), or a broken folder whose name is no run
        id (``my run (copy)``), checked to be an entry directly in the root, not hidden and not a link."""
        if (not isinstance(name, str) or RUN_ID.fullmatch(name) or name in ("", ".", "..") or name.startswith(".")
                or "/" in name or "\0" in name or not os.path.lexists(self.root / name)):
            return self.path_of(name)  # a run id, or its refusal
        root = self.root.resolve()
        path = root / name
        if path.is_symlink() or path.resolve().parent != root:
            raise ValueError(f"{name!r} in {self.root} is a link; seqlab does not follow links in the runs folder "
                             "(they can lead outside it). Remove the link by hand if it is not yours.")
        return path

    def delete(self, name: str) -> None:
        """Remove a run folder, readable or broken (a broken one can only be cleaned up this way); ``name`` as the
        listing names it (``listed_path``)."""
        path = self.listed_path(name)
        if not path.is_dir():
            raise ValueError(f"Unknown run {name!r} in {self.root}.")
        self.sweep()
        scratch = make_scratch(self.root)
        try:
            with _locked(scratch), _locked(path):  # sweep leaves both alone until the run is gone
                os.replace(path, scratch / "run")  # moved first, so a half-deleted run is hidden at once
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def sweep(self, grace_seconds: float = SWEEP_GRACE_SECONDS) -> list[str]:
        """Remove seqlab's own scratch folders left by a crash (``seqlab.scratch``); the names removed.

        Only in a folder marked as a run store, only scratch folders untouched for
        ``grace_seconds`` and not locked by a live writer or deleter; links are never followed.
        """
        removed = []
        if not self.root.is_dir() or not is_store(self.root):
            return removed
        cutoff = time.time() - grace_seconds
        for path in self.root.iterdir():
            try:
                if not is_scratch(path) or path.lstat().st_mtime > cutoff:
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
    missing = [f for f in REQUIRED_FILES if not os.path.lexists(folder / f)]
    if missing and missing != [SAVEDMODEL_FILE]:
        raise ValueError(f"incomplete, {', '.join(missing)} missing.")
    try:
        loaded = {name: read_json(folder / f"{name}.json", f"{name}.json", RECORD_BYTES)
                  for name in ("spec", "meta", "metrics")}
        history_file = folder / "history.json"
        history = read_json(history_file, "history.json", HISTORY_BYTES) if os.path.lexists(history_file) else {}
    except ValueError as err:
        raise ValueError(f"corrupt file: {err}") from None
    meta = RunMeta.from_dict(loaded["meta"])
    # Trained without it, or under JAX where TensorFlow was missing: its SavedModel is made later (seqlab.late_export).
    if missing and not meta.savedmodel_later and meta.versions.get("backend", "tensorflow") == "tensorflow":
        raise ValueError(f"incomplete, {SAVEDMODEL_FILE} missing.")
    return check_spec(loaded["spec"]), meta, check_metrics(loaded["metrics"]), check_history(history)


def _check_plain_files(folder: Path) -> None:
    """``ValueError`` naming a pipe, device or socket (or a link to one) under ``folder``: seqlab never writes
    one, and opening one blocks or acts. Checked from ``os.stat``, so nothing is opened."""
    for parent, _, files in os.walk(folder):
        for name in files:
            try:
                mode = os.stat(os.path.join(parent, name)).st_mode
            except OSError:  # a dangling link: nothing can be opened through it
                continue
            if not stat.S_ISREG(mode):
                relative = Path(parent, name).relative_to(folder).as_posix()
                raise ValueError(f"{relative} is not a regular file (a pipe, device or socket); seqlab never "
                                 "writes one: delete the run.")


def _holds_run(folder: Path) -> bool:
    """Whether ``folder`` has a run's files (``claims_store``: an older store, from before the mark)."""
    return all(os.path.lexists(folder / name) for name in REQUIRED_FILES)


def _model_problem(folder: Path) -> str | None:
    """Cheap: ``model.keras`` must be a zip archive with a model config (a truncated one is not)."""
    try:
        with open_regular(folder / "model.keras", what="run file") as file, zipfile.ZipFile(file) as archive:
            archive.getinfo("config.json")
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
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
