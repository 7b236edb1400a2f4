"""Run folders damaged in the ways the store must survive, copied from a real run."""

import json
import shutil

BROKEN_NAMES = ("20260101-000000-sine-mlp-meta", "20260101-000000-sine-mlp-trunc", "20260101-000000-sine-mlp-foreign")


def add_broken_runs(runs_dir, run) -> tuple[str, ...]:
    """Three broken copies of ``run`` in ``runs_dir``: meta.json a list, model.keras truncated, a foreign
    saved_model.pb. Their names."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    folders = [runs_dir / name for name in BROKEN_NAMES]
    for folder in folders:
        shutil.copytree(run.path, folder)
    meta, truncated, foreign = folders
    (meta / "meta.json").write_text(json.dumps([json.loads((meta / "meta.json").read_text())]))
    (truncated / "model.keras").write_bytes((truncated / "model.keras").read_bytes()[:200])
    (foreign / "savedmodel" / "saved_model.pb").write_bytes(b"\x08\x01not the SavedModel seqlab wrote")
    return BROKEN_NAMES
