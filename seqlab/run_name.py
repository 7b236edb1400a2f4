"""A run's name: the user's own label for it ("lstm 64 units, lr 1e-3"), in ``name.json`` in the run folder.

A name belongs to the run, not to the experiment (two runs of one spec may be
told apart by name), and it may change after training. So it is its own file,
left out of the signed manifest (``seqlab.manifest``): renaming replaces one
file atomically and never re-signs the run, so it cannot make an untrusted run
trusted, nor leave ``meta.json`` and the manifest out of step after a crash.
It is only text to show; it is checked whenever it is written or read. Runs
without the file have no name.
"""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

from seqlab.bounded_json import NAME_BYTES, read_json
from seqlab.checks import shown

NAME_FILE = "name.json"
MAX_LENGTH = 80
JOINERS = ("\u200c", "\u200d")  # format characters that emoji and some scripts need


def check_name(name) -> str | None:
    """``name`` without surrounding blanks; ``None`` for none or a blank one.

    ``ValueError`` for a name longer than ``MAX_LENGTH`` characters, or holding
    control or invisible format characters (a new line, a tab, a right-to-left
    override that would disguise the text).
    """
    if name is None:
        return None
    if not isinstance(name, str):
        raise ValueError(f"A run's name must be text, got {shown(name)}.")
    name = name.strip()
    if len(name) > MAX_LENGTH:
        raise ValueError(f"A run's name has at most {MAX_LENGTH} characters; this one has {len(name)}: shorten it.")
    for position, char in enumerate(name, start=1):
        if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co") and char not in JOINERS:
            raise ValueError(
                f"A run's name cannot hold control characters; character {position} is {char!r} "
                f"({unicodedata.name(char, 'a control character')}): write the name on one line of plain text."
            )
    return name or None


def read_name(folder: Path) -> str | None:
    """The name in ``folder/name.json`` (``None``: no file); ``ValueError`` for a damaged file."""
    path = folder / NAME_FILE
    if not os.path.lexists(path):
        return None
    try:
        value = read_json(path, NAME_FILE, NAME_BYTES)
    except ValueError as err:
        raise ValueError(f"{NAME_FILE} is unreadable ({err}); rename the run or delete {NAME_FILE}.") from None
    if not isinstance(value, dict) or set(value) != {"name"}:
        raise ValueError(f"{NAME_FILE} must hold {{\"name\": text}}, got {shown(value)}; rename the run or delete it.")
    try:
        return check_name(value["name"])
    except ValueError as err:
        raise ValueError(f"{NAME_FILE}: {err}") from None


def write_name(folder: Path, name: str | None) -> None:
    """Write ``name`` (checked) to ``folder/name.json``; the caller makes it atomic (``RunStore.rename``)."""
    (folder / NAME_FILE).write_text(json.dumps({"name": check_name(name)}, ensure_ascii=False))
