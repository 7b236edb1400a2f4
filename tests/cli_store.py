"""Run folders for the CLI tests, written through the run store's public ``write`` (so they are signed)."""

import json
import shutil
from pathlib import Path

from seqlab.runs import Run, RunStore


def copy_run(root: Path, source: Run, run_id: str, meta: dict | None = None, metrics: dict | None = None) -> Run:
    """A copy of ``source`` named ``run_id`` under ``root``, with ``meta`` fields and ``metrics`` replaced.

    ``metrics`` is written with Python's json defaults, so NaN and Infinity go in
    as the non-standard tokens a diverged run could hold.
    """

    def fill(folder: Path) -> None:
        for item in source.path.iterdir():
            if item.name == "manifest.json":
                continue
            (shutil.copytree if item.is_dir() else shutil.copyfile)(item, folder / item.name)
        if meta:
            values = json.loads((folder / "meta.json").read_text())
            (folder / "meta.json").write_text(json.dumps({**values, **meta}))
        if metrics is not None:
            (folder / "metrics.json").write_text(json.dumps(metrics))

    store = RunStore(root)
    store.write(run_id, fill)
    return store.read(run_id)
