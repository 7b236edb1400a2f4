"""A user's file pinned by its hash: the ``path``, ``sha256`` and ``file_name`` data options.

A dataset made from a file the user gives (a CSV series, a text) names it in its
options and pins it: ``sha256`` is checked at every load when given, so a spec
reproduces its run or says the file changed. An upload is kept in the cache
folder under its hash, so a background job and a later reload find it.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from pathlib import Path

import pandas as pd

from seqlab.data.corpora.cache import cache_dir
from seqlab.inputs import Source, read_bytes, read_csv

FILE_DEFAULTS = {"path": "", "sha256": "", "file_name": ""}
CSV = "CSV file"
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


def read_pinned_csv(path: str, sha256: str, file_name: str, dataset: str) -> pd.DataFrame:
    """The CSV file of dataset ``dataset`` as read (every column, unchanged), after its pin is checked."""
    if not path:
        raise ValueError(
            f"The {dataset} dataset needs a file: upload a .csv on the Data or Train page, or give "
            f"--dataset {dataset}:PATH on the command line."
        )
    label = file_name or os.path.basename(path)
    check_pin(path, sha256, label, CSV)
    named = io.BytesIO(read_bytes(path, what=CSV))
    named.name = label  # messages name the file as the user knows it, never the cache path
    return read_csv(named)


def store_csv(source: Source, name: str) -> dict:
    """A CSV upload checked by ``read_csv``, kept in the cache folder under its hash: its data options."""
    data = read_bytes(source, what=CSV, raw=True)
    named = io.BytesIO(data)
    named.name = os.path.basename(name) or "table.csv"
    read_csv(named)  # the checks (limits, encoding, ragged rows) before keeping it
    return store_upload(data, named.name, ".csv")
