"""The signed manifest of a run folder: which files seqlab wrote, their SHA-256, and an HMAC over the list.

A SavedModel is code (loading it runs its graph), so seqlab loads one only
when the run's ``manifest.json`` proves that seqlab wrote the folder on this
machine and nothing changed since::

    {"format": 1,
     "files": {"model.keras": {"sha256": "...", "size": 123}, "savedmodel/saved_model.pb": {...}, ...},
     "hmac_sha256": "<HMAC-SHA256 of the canonical JSON of format and files>"}

The key is per user, created once with mode 0600 at ``$SEQLAB_HOME/signing.key``
(default ``~/.local/share/seqlab/signing.key``), and never leaves that file.
``inconsistency`` is the check the run store makes whenever it reads a run, to
list it or to use it (file set, sizes and SHA-256, so a file damaged without
changing its size is caught too); ``verify_folder`` adds the signature, before
a SavedModel is loaded. A file's SHA-256 is remembered for as long as the
file's identity, size and times stay the same (``file_sha256``), so reading
a run again costs one ``stat`` per file; hashing a run anew runs at about
900 MB/s: 2 ms for a seq2seq run of 61,000 weights (1.9 MB), about 0.2 s at
5,000,000 weights (about 32 bytes a weight: weights, Adam's moments, SavedModel).

A run imported from someone's zip (``seqlab.run_import``) is signed too, so its
files cannot change unnoticed, but its manifest adds ``"imported": {"source",
"run_id", "at"}`` inside the signed body: ``verify_folder`` then never vouches
for it (its SavedModel was not written here), and removing the mark breaks the
signature. Manifests without the mark sign exactly what they always did.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from pathlib import Path

from seqlab.bounded_json import MANIFEST_BYTES, read_json
from seqlab.inputs import open_regular
from seqlab.run_name import NAME_FILE
from seqlab.run_owner import OWNER_FILE

MANIFEST = "manifest.json"
# Files a run keeps outside its signature: the manifest itself, the user's name for the run and who owns it
# (``seqlab.run_name``, ``seqlab.run_owner``: labels that renaming and sharing replace, never code or a result).
UNSIGNED = (MANIFEST, NAME_FILE, OWNER_FILE)
FORMAT = 1
HOME_ENV = "SEQLAB_HOME"
KEY_FILE = "signing.key"
# (path, device, inode, size, mtime, ctime) -> SHA-256. ctime changes with any write and cannot be set back,
# so a file changed in place never matches its old entry. Bounded: a server lists the same runs over and over.
_HASHES: dict[tuple, str] = {}
_MAX_HASHES = 10_000


def home() -> Path:
    """seqlab's per-user folder: ``$SEQLAB_HOME``, else ``~/.local/share/seqlab``."""
    return Path(os.environ.get(HOME_ENV) or Path.home() / ".local" / "share" / "seqlab")


def signing_key() -> bytes:
    """This user's signing key, created on first use (32 random bytes, mode 0600)."""
    path = home() / KEY_FILE
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            _create_key(path)
        info = path.lstat()
    except OSError as err:
        raise ValueError(
            f"Cannot create the signing key {path} ({err.strerror}); set {HOME_ENV} to a folder you can write."
        ) from None
    if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077:
        raise ValueError(
            f"The signing key {path} must be a plain file only you can read; fix it with: chmod 600 {path}"
        )
    key = path.read_bytes()
    if len(key) < 32:
        raise ValueError(f"The signing key {path} is damaged; delete it (runs written before will need --trust).")
    return key


def _create_key(path: Path) -> None:
    # Write a private temporary file, then link it into place: two processes starting at
    # once both end up with the one key that won, never a half-written one.
    tmp = path.with_name(f".{KEY_FILE}-{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, secrets.token_bytes(32))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        tmp.unlink()


def regular_files(folder: Path) -> list[str]:
    """Relative POSIX paths of the plain files under ``folder``, sorted; links are never followed or listed."""
    found = []
    for parent, dirs, files in os.walk(folder):  # os.walk does not descend into linked folders
        for name in files:
            path = Path(parent) / name
            if stat.S_ISREG(path.lstat().st_mode):
                found.append(path.relative_to(folder).as_posix())
    return sorted(found)


def sha256(path: Path) -> str:
    """The SHA-256 of the file ``path``, read through the input gate (a regular file, never a FIFO)."""
    digest = hashlib.sha256()
    with open_regular(path, what="run file") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    """``sha256(path)``, remembered while the file's identity, size and times stay the same."""
    info = os.stat(path)
    key = (os.fspath(path), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    if key not in _HASHES:
        if len(_HASHES) >= _MAX_HASHES:
            _HASHES.clear()
        _HASHES[key] = sha256(path)
    return _HASHES[key]


def _signature(files: dict, key: bytes, imported: dict | None = None) -> str:
    signed = {"format": FORMAT, "files": files, **({"imported": imported} if imported is not None else {})}
    body = json.dumps(signed, sort_keys=True, separators=(",", ":"))
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


def write_manifest(folder: Path, imported: dict | None = None) -> None:
    """Hash every file of ``folder`` and write the signed ``manifest.json`` beside them; ``imported``
    (where an imported run came from) marks the run as not trained here, inside the signature."""
    files = {
        name: {"sha256": sha256(folder / name), "size": (folder / name).stat().st_size}
        for name in regular_files(folder) if name not in UNSIGNED
    }
    manifest = {"format": FORMAT, "files": files, "hmac_sha256": _signature(files, signing_key(), imported)}
    if imported is not None:
        manifest["imported"] = imported
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True))


def _read(folder: Path) -> dict:
    try:
        manifest = read_json(folder / MANIFEST, MANIFEST, MANIFEST_BYTES)
    except (OSError, ValueError) as err:
        raise ValueError(f"{MANIFEST} is unreadable ({str(err).rstrip('.')})") from None
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if (
        not isinstance(files, dict)
        or not isinstance(manifest.get("hmac_sha256"), str)
        or not all(
            isinstance(entry, dict) and isinstance(entry.get("sha256"), str) and isinstance(entry.get("size"), int)
            for entry in files.values()
        )
        or not isinstance(manifest.get("imported", {}), dict)
    ):
        raise ValueError(f"{MANIFEST} does not have the shape seqlab writes")
    return manifest


def _differences(folder: Path, files: dict) -> str | None:
    present = set(regular_files(folder)) - set(UNSIGNED)
    missing, added = sorted(set(files) - present), sorted(present - set(files))
    if missing or added:
        parts = ([f"missing {missing}"] if missing else []) + ([f"added {added}"] if added else [])
        return "files differ from what seqlab wrote: " + ", ".join(parts)
    changed = [name for name, entry in files.items() if (folder / name).stat().st_size != entry["size"]]
    changed = changed or [name for name, entry in files.items() if file_sha256(folder / name) != entry["sha256"]]
    return f"{changed[0]} was changed after seqlab wrote it" if changed else None


def inconsistency(folder: Path) -> str | None:
    """A folder whose files, sizes or SHA-256 differ from its own manifest (``None``: none, or no manifest)."""
    if not os.path.lexists(folder / MANIFEST):
        return None  # runs written before manifests: readable, but not trusted (see verify_folder)
    try:
        return _differences(folder, _read(folder)["files"])
    except (ValueError, OSError) as err:
        return str(err)


def verify_folder(folder: str | os.PathLike) -> str | None:
    """``None`` when seqlab wrote ``folder`` with this user's key and nothing changed since, else why not."""
    folder = Path(folder)
    if not (folder / MANIFEST).is_file():
        return f"there is no {MANIFEST} (written by an older seqlab, or elsewhere)"
    try:
        manifest = _read(folder)
        signature = _signature(manifest["files"], signing_key(), manifest.get("imported"))
        if not hmac.compare_digest(manifest["hmac_sha256"], signature):
            return "its manifest was not signed with this user's key (copied from another machine or user, or edited)"
        if "imported" in manifest:
            origin = manifest["imported"]
            return (f"it was imported from the zip {origin.get('source')!r} on {origin.get('at')}, not trained here: "
                    "seqlab cannot vouch for its SavedModel")
        return _differences(folder, manifest["files"])
    except (ValueError, OSError) as err:
        return str(err)


def imported_from(folder: Path) -> dict | None:
    """Where an imported run came from (its manifest's ``imported``: source, run_id, at); ``None`` for a run
    trained here, or one without a readable manifest (``inconsistency`` reports that)."""
    try:
        return _read(folder).get("imported") if (folder / MANIFEST).is_file() else None
    except ValueError:
        return None

