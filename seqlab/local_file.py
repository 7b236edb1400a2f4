"""A local, regular file read within a size bound: the part of the input gate (``seqlab.inputs``) that reads paths.

It sits below the gate so that what the gate itself needs can read files
too: the server's limits (``seqlab.limits``) come from a config file read
through ``seqlab.bounded_json``, and the gate's default limits are those.
The rules are the gate's: local paths only (no URLs); regular files only,
refused from ``os.stat`` before anything is opened; the size checked before
reading and again while reading. Every refusal is one ``ValueError`` naming
the file, the problem and the fix.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator

MB = 1 << 20  # a megabyte as Streamlit's upload limit and seqlab.limits count it
CHUNK = MB  # bytes read (or inflated) per step


def file_label(what: str, source) -> str:
    """``what`` and the file's name as the user knows it (never a resolved server path)."""
    if isinstance(source, (str, os.PathLike)):
        name = os.fsdecode(os.fspath(source))
    else:
        name = getattr(source, "name", None)
    text = f"{what} {str(name)!r}" if name else what
    return text[:1].upper() + text[1:]


def size_text(n: int) -> str:
    return f"{n:,} bytes" if n < MB else f"{n / MB:,.1f} MB"


def error_reason(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[-1] if lines else type(err).__name__


def too_big_error(label: str, limit: int, size: int | None = None) -> ValueError:
    is_ = f"is {size_text(size)}; the limit is" if size is not None else "is larger than the limit of"
    return ValueError(f"{label} {is_} {size_text(limit)}: use a smaller file.")


def check_size(size: int, limit: int, label: str) -> None:
    if size > limit:
        raise too_big_error(label, limit, size)


def chunks_of(read: Callable[[int], bytes]) -> Iterator[bytes]:
    while chunk := read(CHUNK):
        yield chunk


def joined_within(chunks: Iterable[bytes], limit: int, too_big: Callable[[], ValueError]) -> bytes:
    """The chunks joined, refused as soon as they pass ``limit`` bytes (so at most one chunk more is held)."""
    kept, total = [], 0
    for chunk in chunks:
        total += len(chunk)
        if total > limit:
            raise too_big()
        kept.append(chunk)
    return b"".join(kept)


def open_regular(path: str | os.PathLike, what: str = "file") -> BinaryIO:
    """``path`` opened for reading (binary), checked as ``read_bytes`` checks a path but with no size limit:
    for a file streamed rather than held whole (a run's model, while it is hashed). The caller closes it."""
    label = file_label(what, path)
    with os_errors(label):
        return open_local(path, label)


def read_local(path, limit: int, label: str) -> bytes:
    with os_errors(label), open_local(path, label, limit) as file:
        return joined_within(chunks_of(file.read), limit, lambda: too_big_error(label, limit))


def open_local(path, label: str, limit: int | None = None) -> BinaryIO:
    """A local, regular file (within ``limit`` bytes) opened without blocking; ``OSError`` passes through."""
    text = os.fsdecode(os.fspath(path))
    if "://" in text or text[:5].lower() == "file:":
        raise ValueError(f"{label} is a URL; seqlab reads local files only: download it and give its local path.")
    if not text.strip() or "\x00" in text:
        raise ValueError(f"{label} is not a valid path: give the path of a file.")
    resolved = Path(text).expanduser().resolve(strict=True)
    info = os.stat(resolved)  # stat, never open: opening a FIFO blocks, opening a device may act
    check_regular(info, label)
    if limit is not None:
        check_size(info.st_size, limit, label)
    fd = os.open(resolved, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    file = os.fdopen(fd, "rb", buffering=0)
    try:
        check_regular(os.fstat(fd), label)  # swapped for something else since the stat
    except ValueError:
        file.close()
        raise
    return file


@contextlib.contextmanager
def os_errors(label: str):
    """The file system's refusals as one ``ValueError`` naming the file."""
    try:
        yield
    except (FileNotFoundError, NotADirectoryError):
        raise ValueError(f"{label} does not exist: check the path.") from None
    except PermissionError:
        raise ValueError(f"{label} cannot be read (permission denied): check its permissions.") from None
    except (OSError, RuntimeError) as err:  # RuntimeError: a symlink loop, or no home folder for "~"
        raise ValueError(f"{label} cannot be read ({error_reason(err)}): check the path.") from None


def check_regular(info: os.stat_result, label: str) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise ValueError(f"{label} is a folder: give the path of a file inside it.")
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{label} is not a regular file (a device, pipe or socket): give a plain file.")
