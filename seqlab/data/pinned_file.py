"""A user's file pinned by its hash: the ``path``, ``sha256`` and ``file_name`` data options.

A dataset made from a file the user gives (a CSV series, a text) names it in its
options and pins it: ``sha256`` is checked at every load when given, so a spec
reproduces its run or says the file changed. An upload is kept in the cache
folder under its hash, so a background job and a later reload find it.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from seqlab.data.corpora.cache import cache_dir
from seqlab.inputs import read_bytes

FILE_DEFAULTS = {"path": "", "sha256": "", "file_name": ""}
_SHA256 = re.compile(r"[0-9a-f]{64}")


def file_options(path: str | os.PathLike, what: str = "file") -> dict:
    """``path``, ``sha256`` and ``file_name`` of a local file, for a spec's data options (``csv:PATH``)."""
    digest = hashlib.sha256(read_bytes(path, what=what, raw=True)).hexdigest()
    return {"path": str(Path(path).resolve()), "sha256": digest, "file_name": Path(path).name}


def store_upload(data: bytes, name: str, suffix: str) -> dict:
    """``data`` kept in the cache folder as ``<sha256><suffix>``: its data options.

    Check the content before storing it; only the name's last part is kept (never a folder).
    """
    digest = hashlib.sha256(data).hexdigest()
    target = cache_dir("uploads") / f"{digest}{suffix}"
    if not target.is_file():
        partial = target.with_suffix(".part")
        partial.write_bytes(data)
        partial.replace(target)  # whole or absent, even if two sessions upload the same file
    return {"path": str(target), "sha256": digest, "file_name": os.path.basename(name)}


def check_pin(path: str, sha256: str, label: str, what: str = "file") -> None:
    """Refuse a malformed ``sha256``, or a file at ``path`` whose hash is no longer ``sha256``."""
    if not sha256:
        return
    if not _SHA256.fullmatch(sha256):
        raise ValueError(f"sha256 must be 64 lowercase hex digits or empty, got {sha256!r}.")
    found = hashlib.sha256(read_bytes(path, what=what, raw=True)).hexdigest()
    if found != sha256:
        raise ValueError(
            f"{what[:1].upper()}{what[1:]} {label!r} changed since this spec was made (SHA-256 {found[:12]}… "
            f"is not {sha256[:12]}…): give the original file, or clear sha256 to train on the new one."
        )
