"""Who a run belongs to on a classroom server, and whether its owner shares it: ``owner.json`` in the run folder.

    {"owner": "ada", "shared": false}

The owner is the browser session that trained or added the run (the name its
student typed, or the session's anonymous id: ``seqlab.app.who``). Like the
run's name (``seqlab.run_name``) it may change after training (sharing) and it
is a label, never code or a result, so it is its own file outside the signed
manifest: changing it replaces one file atomically and never re-signs the run.
A run without the file (trained from the CLI or by a lesson, or before owners
existed) belongs to the server's local user: every session sees it, and only
the teacher changes it (``seqlab.ownership``). It never travels in a run zip.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from seqlab.bounded_json import NAME_BYTES, read_json
from seqlab.checks import shown

OWNER_FILE = "owner.json"
MAX_OWNER_LENGTH = 40
OWNER = re.compile(r"[\w .@-]+")  # letters and digits of any script, blanks and . @ - _


@dataclass(frozen=True)
class Ownership:
    owner: str | None = None  # None: the server's local user (the CLI, a lesson's runs)
    shared: bool = False  # the owner shows it to every session


def check_owner(owner) -> str:
    """``owner`` without surrounding blanks; ``ValueError`` for anything but a short plain name."""
    if not isinstance(owner, str) or not owner.strip():
        raise ValueError(f"An owner is a name of letters and digits, got {shown(owner)}; type your name.")
    owner = owner.strip()
    if len(owner) > MAX_OWNER_LENGTH or not OWNER.fullmatch(owner):
        raise ValueError(f"An owner's name has at most {MAX_OWNER_LENGTH} letters, digits, blanks or . @ - _; "
                         f"{shown(owner)} is not one: type a shorter, plain name.")
    return owner


def read_ownership(folder: Path) -> Ownership:
    """The ownership in ``folder/owner.json`` (no file: the local user's); ``ValueError`` for a damaged file."""
    path = folder / OWNER_FILE
    if not os.path.lexists(path):
        return Ownership()
    try:
        value = read_json(path, OWNER_FILE, NAME_BYTES)
    except ValueError as err:
        raise ValueError(f"{OWNER_FILE} is unreadable ({err}); delete {OWNER_FILE} to give the run to the "
                         "server.") from None
    if not isinstance(value, dict) or set(value) != {"owner", "shared"} or not isinstance(value["shared"], bool):
        raise ValueError(f"{OWNER_FILE} must hold {{\"owner\": text, \"shared\": true or false}}, got "
                         f"{shown(value)}; delete {OWNER_FILE} to give the run to the server.")
    try:
        return Ownership(check_owner(value["owner"]), value["shared"])
    except ValueError as err:
        raise ValueError(f"{OWNER_FILE}: {err}") from None


def write_ownership(folder: Path, ownership: Ownership) -> None:
    """Write ``ownership`` (its owner checked) to ``folder/owner.json``; the caller makes it atomic
    (``RunStore.set_ownership``)."""
    owner = check_owner(ownership.owner)
    (folder / OWNER_FILE).write_text(json.dumps({"owner": owner, "shared": bool(ownership.shared)},
                                                ensure_ascii=False))
