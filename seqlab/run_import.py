"""Add someone's run zip (the Models page's Download zip) to the run store, as an imported, untrusted run.

The zip is checked as an uploaded model is (``seqlab.uploaded_model.unzip_checked``:
size limits, no links, no paths outside its folder), and its JSON files as the
store reads them, before anything is written. Only the files a run keeps are
copied (``KEPT``, the task's assets and ``savedmodel/``); the run gets a new id
of its own (never the zip's, so no run is ever overwritten) and is written
atomically like a trained one, signed with a manifest that marks it imported
(``seqlab.manifest``). Its metrics, curves and predictions are plain data and
show like any run's; its ``model.keras`` is loaded once before the run is
stored (``seqlab.keras_file``: every member capped, Keras's safe mode with
seqlab's classes only, within the weight limit); its SavedModel is code, so
loading it asks first, as an uploaded SavedModel does.
"""

from __future__ import annotations

import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from seqlab.inputs import InputLimits, input_limits, read_bytes
from seqlab.run_meta import RunMeta
from seqlab.run_name import NAME_FILE, read_name
from seqlab.runs import REQUIRED_FILES, Run, RunStore, run_files
from seqlab.uploaded_model import unzip_checked

KEPT = (*REQUIRED_FILES, "history.json", "predictions.npz", NAME_FILE)  # besides meta.assets and savedmodel/


def import_run(store: RunStore, name: str, source, limits: InputLimits | None = None) -> Run:
    """Store the run zip ``name`` (bytes, a path or an upload) in ``store`` as an imported run; the new run.

    ``ValueError`` naming the problem for anything but a readable seqlab run zip.
    """
    limits = limits or input_limits()
    data = read_bytes(source, limits, what=f"run zip {name!r}", raw=True)
    with tempfile.TemporaryDirectory(prefix="seqlab-import-") as unpacked:
        unzip_checked(name, data, Path(unpacked), limits.max_decompressed_bytes)
        folder = _run_folder(name, Path(unpacked))
        meta = _checked(name, folder)
        _check_model(name, folder, meta, unpacked)
        files = [f for f in (*KEPT, *meta.assets) if (folder / f).is_file()]

        def fill(target: Path) -> None:
            for file in files:
                (target / file).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(folder / file, target / file)
            if (folder / "savedmodel").is_dir():  # a run trained without it has it made later, here too
                shutil.copytree(folder / "savedmodel", target / "savedmodel", dirs_exist_ok=True)

        origin = {"source": name, "run_id": folder.name,
                  "at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        run_id = store.new_run_id(meta.dataset, meta.model)  # a fresh id: the zip's own may be taken
        store.write(run_id, fill, imported=origin)
    return store.read(run_id)


def _check_model(name: str, folder: Path, meta: RunMeta, unpacked: str) -> None:
    """Load the run's ``model.keras`` once (``seqlab.keras_file.load_keras``: members capped, only Keras's and
    seqlab's classes, within ``max_parameters``, shapes that fit ``meta``): refused now, not when the run is used."""
    from seqlab.keras_file import load_keras  # imports Keras: only when a zip is imported

    try:
        load_keras(folder / "model.keras", meta)
    except ValueError as err:  # named inside the zip, never by the server's temporary folder
        raise ValueError(f"The run zip {name!r} holds a model seqlab does not load: "
                         f"{str(err).replace(unpacked, name)}") from None


def _run_folder(name: str, unpacked: Path) -> Path:
    """The one folder of the zip that holds ``meta.json`` and ``model.keras``."""
    folders = sorted({p.parent for p in unpacked.rglob("meta.json") if (p.parent / "model.keras").is_file()})
    if len(folders) != 1:
        raise ValueError(f"The zip {name!r} holds {len(folders)} run folders (meta.json beside model.keras); "
                         "add a run zip from a Models page's Download zip, one run per zip.")
    return folders[0]


def _checked(name: str, folder: Path) -> RunMeta:
    """The run's ``meta.json``, after every file the store reads passed its checks (``run_files``) and its
    task's assets (tokenisers, scaler) loaded once: a damaged one is refused here, not when the run is used."""
    from seqlab.tasks import get_task  # imports Keras: only when a zip is imported

    try:
        _, meta, _, _ = run_files(folder)
        read_name(folder)
    except ValueError as err:
        raise ValueError(f"The run zip {name!r} is not a readable seqlab run: {err} Download the run's zip "
                         "again.") from None
    bad = [a for a in meta.assets if Path(a).is_absolute() or ".." in Path(a).parts]
    if bad:
        raise ValueError(f"The run zip {name!r} names assets outside its folder ({bad}): it was not written by seqlab.")
    try:
        get_task(meta.task).load_assets(folder)
    except ValueError as err:
        raise ValueError(f"The run zip {name!r} has an unreadable asset: {err}") from None
    return meta
