"""Run folders damaged in the ways the store must survive, copied from a real run."""

import json
import os
import shutil

BROKEN_NAMES = tuple(f"20260101-000000-sine-mlp-{damage}" for damage in
                     ("meta", "trunc", "foreign", "deep", "pipe", "flipped"))


def add_broken_runs(runs_dir, run) -> tuple[str, ...]:
    """Broken copies of ``run`` in ``runs_dir``: meta.json a list, model.keras truncated, a foreign
    saved_model.pb, manifest.json nested past Python's recursion limit, manifest.json a pipe (opening it
    blocks), model.keras changed without changing its size. Their names."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    folders = [runs_dir / name for name in BROKEN_NAMES]
    for folder in folders:
        shutil.copytree(run.path, folder)
    meta, truncated, foreign, deep, pipe, flipped = folders
    (meta / "meta.json").write_text(json.dumps([json.loads((meta / "meta.json").read_text())]))
    (truncated / "model.keras").write_bytes((truncated / "model.keras").read_bytes()[:200])
    (foreign / "savedmodel" / "saved_model.pb").write_bytes(b"\x08\x01not the SavedModel seqlab wrote")
    (deep / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    (pipe / "manifest.json").unlink()
    os.mkfifo(pipe / "manifest.json")
    model = bytearray((flipped / "model.keras").read_bytes())
    model[len(model) // 2] ^= 0xFF
    (flipped / "model.keras").write_bytes(bytes(model))
    return BROKEN_NAMES
