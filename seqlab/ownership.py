"""Who may see and change which run on a classroom server: the run store as one browser session uses it.

A session (a ``Viewer``) sees its own runs, the runs that belong to the
server's local user (trained from the CLI or by a lesson: ``seqlab.run_owner``)
and the runs others share; only a run's owner, or the teacher, renames,
deletes or shares it. Without a teacher key every session is the teacher
(``seqlab.app.who``), so every session sees and changes every run. The rules
are checked by the store itself (``SessionStore``), not only by the buttons
that offer them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from seqlab.run_owner import Ownership, check_owner, read_ownership, write_ownership
from seqlab.runs import Run, RunStore


@dataclass(frozen=True)
class Viewer:
    owner: str  # the session's owner: a typed name or an anonymous id
    teacher: bool = False


def may_see(ownership: Ownership, viewer: Viewer) -> bool:
    return viewer.teacher or ownership.owner is None or ownership.shared or ownership.owner == viewer.owner


def refusal(ownership: Ownership, viewer: Viewer) -> str | None:
    """Why ``viewer`` may not rename, delete or share a run of ``ownership`` (``None``: it may)."""
    if viewer.teacher or ownership.owner == viewer.owner:
        return None
    whose = "the class's (the server's)" if ownership.owner is None else f"{ownership.owner}'s"
    return f"This run is {whose}: only its owner or the teacher may rename, delete or share it."


class SessionStore(RunStore):
    """The run store as ``viewer`` sees it: ``scan`` lists what it may see; ``rename``, ``delete`` and ``share``
    refuse, with a ``ValueError`` saying why, a run it may not change; what it writes (an imported run) is its own."""

    def __init__(self, viewer: Viewer, root: str | os.PathLike | None = None):
        super().__init__(root)
        self.viewer = Viewer(check_owner(viewer.owner), viewer.teacher)

    def scan(self) -> tuple[list[Run], dict[str, str]]:
        runs, broken = super().scan()
        return ([run for run in runs if may_see(run.ownership, self.viewer)],
                {name: reason for name, reason in broken.items() if self._sees_folder(name)})

    def refusal(self, name: str) -> str | None:
        """Why this session may not change the run (or broken folder) ``name`` lists as (``None``: it may)."""
        try:
            return refusal(read_ownership(self.listed_path(name)), self.viewer)
        except (ValueError, OSError) as err:  # no owner to read: only the teacher may clean it up
            return None if self.viewer.teacher else f"Only the teacher may change it: {err}"

    def rename(self, run_id: str, name: str | None) -> None:
        self._check(run_id)
        super().rename(run_id, name)

    def delete(self, name: str) -> None:
        self._check(name)
        super().delete(name)

    def share(self, run_id: str, shared: bool) -> None:
        """Show run ``run_id`` to every session (``shared``) or to its owner and the teacher only."""
        self._check(run_id)
        ownership = read_ownership(self.path_of(run_id))
        if ownership.owner is None:
            raise ValueError(f"Run {run_id!r} belongs to the server and every session sees it already; only a "
                             "session's own run can be shared.")
        self.set_ownership(run_id, replace(ownership, shared=shared))

    def write(self, run_id: str, fill: Callable[[Path], None], imported: dict | None = None) -> Path:
        def owned(folder: Path) -> None:  # in the folder before it appears: never listed as the class's meanwhile
            fill(folder)
            write_ownership(folder, Ownership(self.viewer.owner))

        return super().write(run_id, owned, imported)

    def _check(self, name: str) -> None:
        why = self.refusal(name)
        if why is not None:
            raise ValueError(f"{name!r}: {why}")

    def _sees_folder(self, name: str) -> bool:
        """A broken folder shows where its owner would: the teacher sees every one."""
        try:
            return may_see(read_ownership(self.listed_path(name)), self.viewer)
        except (ValueError, OSError):
            return self.viewer.teacher
