"""The teacher's switches on the server: which lesson is locked and what is hidden, for every student session.

Kept in ``.seqlab-classroom.json`` in the run store (hidden: the listing skips
it), replaced atomically (a private temporary file, fsynced, renamed over the
old one), and read again by every session on every rerun, so a switch the
teacher turns applies to every student at their next rerun, whatever their
link says. Used only on a server with a teacher key (``seqlab.limits``);
without one the switches live in each page's link.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from seqlab.bounded_json import NAME_BYTES, read_json
from seqlab.checks import shown
from seqlab.scratch import claims_store, mark_store

CLASSROOM_FILE = ".seqlab-classroom.json"


@dataclass(frozen=True)
class Classroom:
    lesson: str | None = None  # the locked lesson's name: every student sees only it (None: not locked)
    hide_plan: bool = False
    hide_equations: bool = False
    hide_notice: bool = False


def read_classroom(root: Path) -> Classroom:
    """The switches in ``root`` (none written yet: all off); ``ValueError`` for a damaged file."""
    path = Path(root) / CLASSROOM_FILE
    if not os.path.lexists(path):
        return Classroom()
    value = read_json(path, CLASSROOM_FILE, NAME_BYTES)
    names = {f.name for f in fields(Classroom)}
    if (not isinstance(value, dict) or set(value) != names or not isinstance(value["lesson"], (str, type(None)))
            or not all(isinstance(value[name], bool) for name in names - {"lesson"})):
        raise ValueError(f"{path} does not hold the teacher's switches ({shown(value)}); the teacher sets them anew "
                         "in the Teacher menu, or delete the file.")
    return Classroom(**value)


def write_classroom(root: Path, classroom: Classroom) -> None:
    """Replace the switches in ``root`` atomically; ``root`` is made (and marked a run store) when missing."""
    root = Path(root)
    created = not os.path.lexists(root)
    root.mkdir(parents=True, exist_ok=True)
    if claims_store(root, created, lambda folder: False):  # the first runs written here can still be swept after
        mark_store(root)
    tmp = root / f"{CLASSROOM_FILE}.{secrets.token_hex(4)}"
    try:
        with open(tmp, "x") as file:
            json.dump(asdict(classroom), file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, root / CLASSROOM_FILE)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
