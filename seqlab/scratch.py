"""The marks that let seqlab clean up after itself in a run store, and nothing else.

A run store is a folder holding ``.seqlab-store`` (``STORE_MARK``): seqlab
marks it when it writes a run into a folder it created, found empty, or found
holding a run of a seqlab before the mark. Every temporary folder seqlab makes
there is a scratch folder: a name of ``SCRATCH_PREFIX`` and ``mkdtemp``'s
random part, holding ``SCRATCH_MARK`` from the start. Only such a folder (or
an empty one of that name), in a marked store, is ever swept; a
``.tmp-build-cache`` of someone else's, or any folder of a store seqlab did
not make, is never touched.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Callable

STORE_MARK = ".seqlab-store"
SCRATCH_PREFIX = ".seqlab-scratch-"
SCRATCH_MARK = ".seqlab-scratch"
SCRATCH_NAME = re.compile(re.escape(SCRATCH_PREFIX) + r"[a-z0-9_]{8}")  # mkdtemp's random part


def make_scratch(root: Path) -> Path:
    """A new private, marked scratch folder directly in ``root``."""
    folder = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=root))
    os.close(os.open(folder / SCRATCH_MARK, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    return folder


def is_scratch(path: Path) -> bool:
    """Whether ``path`` is a scratch folder seqlab made: its name, a real folder (not a link) and its mark, or
    empty (a process killed between making the folder and its mark: there is nothing in it to lose)."""
    if SCRATCH_NAME.fullmatch(path.name) is None or path.is_symlink() or not path.is_dir():
        return False
    mark = path / SCRATCH_MARK
    return (not mark.is_symlink() and mark.is_file()) or not any(path.iterdir())


def is_store(root: Path) -> bool:
    mark = root / STORE_MARK
    return not mark.is_symlink() and mark.is_file()


def claims_store(root: Path, created: bool, holds_run: Callable[[Path], bool]) -> bool:
    """Whether a run written to the existing folder ``root`` makes it a run store: it is one already, seqlab
    just ``created`` it, it is empty, or a folder in it ``holds_run`` (a store of a seqlab before the mark). A
    folder of other things is not claimed: runs can be written there, but nothing is ever swept."""
    if created or is_store(root):
        return True
    with os.scandir(root) as entries:
        entries = list(entries)
    return not entries or any(e.is_dir(follow_symlinks=False) and holds_run(Path(e.path)) for e in entries)


def mark_store(root: Path) -> bool:
    """Mark ``root`` as a run store (after ``claims_store``); whether this call made the mark."""
    try:
        os.close(os.open(root / STORE_MARK, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644))
    except FileExistsError:  # marked before, or meanwhile by another process
        return False
    return True
