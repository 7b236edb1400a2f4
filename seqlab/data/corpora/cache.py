"""The user's cache folder for fetched data: never inside the repository."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "SEQLAB_CACHE"


def cache_dir(name: str) -> Path:
    """The folder ``name`` under ``$SEQLAB_CACHE`` (else ``~/.cache/seqlab``), created if missing."""
    root = os.environ.get(CACHE_ENV, "").strip()
    folder = (Path(root).expanduser() if root else Path.home() / ".cache" / "seqlab") / name
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(
            f"The cache folder {str(folder)!r} cannot be created ({err.strerror or err}): "
            f"set {CACHE_ENV} to a folder you can write to."
        ) from None
    return folder
