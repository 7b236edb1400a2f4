"""Reading a file a user gives: the one gate every upload and path goes through.

A CSV series today, and soon text corpora, translation pairs, embedding files and
model zips all come in here, so the same rules hold everywhere:

- local paths only (no URLs); regular files only: folders, devices, pipes and
  sockets are refused from ``os.stat`` before anything is opened (a FIFO never blocks);
- a size limit, checked before reading and again while reading (a file that grows);
- compressed input (gzip, bzip2, xz, zip; told by its magic bytes, not its name)
  refused unless ``InputLimits.allow_compressed``, then decompressed as a stream
  that stops at ``max_decompressed_bytes``, so a bomb is never inflated;
- archives of several files (a ``.keras`` model, a run zip, a zipped SavedModel):
  ``open_archive`` checks the zip's directory before any member is read, and
  members are inflated only through ``read_member``, ``check_members`` and
  ``unpack_archive``, as streams capped like a compressed file's;
- text: UTF-8 (with or without BOM), UTF-16/32 with a BOM, else a legacy encoding
  only when charset-normalizer recognises a language in it without garbled
  characters (``detect_encoding`` names it, for a note); binary data refused;
- CSV: ragged rows, a header alone, duplicate column names and too many rows refused.

Every refusal is one ``ValueError`` naming the file, the problem and the fix.
"""

from __future__ import annotations

import bz2
import codecs
import collections
import contextlib
import csv
import gzip
import io
import lzma
import os
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Callable, Iterator, Union

import charset_normalizer
import pandas as pd

from seqlab.checks import check_bool, check_int
from seqlab.limits import current_limits
from seqlab.local_file import (
    CHUNK, MB, check_size, chunks_of, error_reason, file_label, joined_within, read_local, size_text, too_big_error,
)
from seqlab.local_file import open_regular  # noqa: F401  runs and .keras files open through the gate

Source = Union[str, os.PathLike, bytes, bytearray, memoryview, BinaryIO]

# Magic bytes at the start of a file -> its compression. bzip2's "BZh" is followed by
# the block size 1-9; that digit is checked in _compression so text starting "BZh" passes.
_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),  # an empty zip
    (b"(\xb5/\xfd", "zstd"),
    (b"7z\xbc\xaf'\x1c", "7z"),
    (b"Rar!\x1a\x07", "rar"),
)
# An xz header may ask for a dictionary of up to 4 GB; xz -9 needs 64 MB.
_XZ_MEMORY = 128 * MB
# Formats made of concatenated streams, each inflated by a decompressor object.
_STREAMS = {
    "bzip2": bz2.BZ2Decompressor,
    "xz": lambda: lzma.LZMADecompressor(lzma.FORMAT_XZ, memlimit=_XZ_MEMORY),
}
_CORRUPT = (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile, NotImplementedError, RuntimeError)
# zipfile builds an object per directory entry before we can count files, several
# times the entry's size: a bigger directory than this is refused unread.
_MAX_ZIP_DIRECTORY = 64 * 1024
_MAX_ZIP_ENTRIES = 16  # folders and macOS's __MACOSX files count too
# UTF-32-LE's BOM starts with UTF-16-LE's, so the longer ones come first.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# A legacy encoding is used only when charset-normalizer finds no garbled characters
# (chaos) and recognises a language (coherence); short or mixed snippets do not pass,
# because there it guesses (EBCDIC for one Latin-1 byte, cp1250 for cp1252's "œ").
_MAX_CHAOS = 0.05
_MIN_COHERENCE = 0.3
_CSV_FIX = "save it as comma-separated text with one header line and balanced quotes."


@dataclass(frozen=True)
class InputLimits:
    """How much a user-given file may hold.

    Attributes:
        max_bytes: size of the file as given (compressed or not).
        max_rows: data rows of a table (the header not counted).
        max_chars: characters of a text once decoded.
        allow_compressed: accept gzip, bzip2, xz and single-file zip input.
        max_decompressed_bytes: size of a compressed file's content; decompression
            stops as soon as it is passed.
    """

    max_bytes: int = 50 * MB
    max_rows: int = 1_000_000
    max_chars: int = 20_000_000
    allow_compressed: bool = False
    max_decompressed_bytes: int = 50 * MB

    def __post_init__(self):
        for name in ("max_bytes", "max_rows", "max_chars", "max_decompressed_bytes"):
            check_int(name, getattr(self, name), minimum=1)
        check_bool("allow_compressed", self.allow_compressed)


def input_limits(allow_compressed: bool = False) -> InputLimits:
    """The ``InputLimits`` of this server (``seqlab.limits``: environment or config file), for every file a
    user gives."""
    limits = current_limits()
    return InputLimits(
        max_bytes=limits.max_upload_mb * MB,
        max_rows=limits.max_upload_rows,
        max_chars=limits.max_upload_chars,
        allow_compressed=allow_compressed,
        max_decompressed_bytes=limits.max_upload_mb * MB,
    )


def _limits(limits: InputLimits | None) -> InputLimits:
    """``limits``, or the server's upload limits."""
    return input_limits() if limits is None else limits


def read_bytes(source: Source, limits: InputLimits | None = None, *, what: str = "file", raw: bool = False) -> bytes:
    """The content of a local path, an uploaded file or raw bytes, within ``limits``.

    Args:
        source: a local path (``str`` or ``PathLike``), an uploaded file (anything
            with ``getvalue()`` or ``read()``, e.g. Streamlit's ``UploadedFile``) or
            the bytes themselves.
        limits: the limits to enforce (``None``: ``InputLimits()``).
        what: what the file is, for messages ("CSV file", "text file").
        raw: return the bytes as stored, without the compression check, for
            files that are archives by format (a ``.keras`` model is a zip); the
            caller then owns the archive's checks.

    Returns:
        The bytes, decompressed when compressed and ``limits.allow_compressed``.
    """
    limits = _limits(limits)
    label = file_label(what, source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        check_size(memoryview(source).nbytes, limits.max_bytes, label)
        data = bytes(source)
    elif isinstance(source, (str, os.PathLike)):
        data = read_local(source, limits.max_bytes, label)
    elif hasattr(source, "getvalue") or hasattr(source, "read"):
        data = _read_upload(source, limits.max_bytes, label)
    else:
        raise TypeError(f"read_bytes takes a path, an uploaded file or bytes, got {type(source).__name__}.")
    kind = None if raw else _compression(data)
    return data if kind is None else _decompress(data, kind, limits, label)


def detect_encoding(data: bytes, *, what: str = "text") -> str:
    """The codec that decodes ``data`` (``utf-8`` for plain UTF-8), or a ``ValueError``."""
    return _decode(data, file_label(what, None))[1]


def decode_text(data: bytes, limits: InputLimits | None = None, *, what: str = "text") -> str:
    """``data`` as text: see the module docstring for the encodings accepted."""
    return _checked_text(data, _limits(limits), file_label(what, None))


def read_text(source: Source, limits: InputLimits | None = None, what: str = "text file") -> str:
    """A user-given text file (see ``read_bytes`` for ``source``), decoded and checked."""
    limits = _limits(limits)
    return _checked_text(read_bytes(source, limits, what=what), limits, file_label(what, source))


def read_csv(source: Source, limits: InputLimits | None = None, what: str = "CSV file") -> pd.DataFrame:
    """A user-given comma-separated table with one header line, as a DataFrame."""
    limits = _limits(limits)
    label = file_label(what, source)
    text = _checked_text(read_bytes(source, limits, what=what), limits, label)
    _check_table(text, limits.max_rows, label)
    try:
        # index_col=False: a row with one value more than the header never becomes an index.
        return pd.read_csv(io.StringIO(text), index_col=False, low_memory=False)
    except ValueError as err:  # pandas's ParserError and EmptyDataError are ValueErrors
        raise ValueError(f"{label} is not a readable CSV file ({error_reason(err)}): {_CSV_FIX}") from None


def _read_upload(upload, limit: int, label: str) -> bytes:
    size = getattr(upload, "size", None)
    if isinstance(size, int):
        check_size(size, limit, label)  # Streamlit knows the size before anything is copied
    if hasattr(upload, "getvalue"):
        data = upload.getvalue()  # already in memory: an UploadedFile is a BytesIO
        check_size(len(data), limit, label)
    else:
        data = joined_within(chunks_of(upload.read), limit, lambda: too_big_error(label, limit))
    if not isinstance(data, bytes):
        raise TypeError(f"{label} was opened as text; open it in binary mode ('rb').")
    return data


def _compression(data: bytes) -> str | None:
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return None if kind == "bzip2" and data[3:4] not in b"123456789" else kind
    return None


def _decompress(data: bytes, kind: str, limits: InputLimits, label: str) -> bytes:
    if kind not in ("gzip", "bzip2", "xz", "zip"):
        raise ValueError(
            f"{label} is a {kind} archive; seqlab reads only gzip, bzip2, xz and single-file zip: "
            "extract it and give the plain file."
        )
    if not limits.allow_compressed:
        raise ValueError(
            f"{label} is compressed ({kind}); compressed files are not accepted here: "
            "decompress it and give the plain file."
        )
    limit = limits.max_decompressed_bytes

    def too_big() -> ValueError:
        return ValueError(
            f"{label} decompresses to more than {size_text(limit)}, the limit: use a smaller file."
        )

    if kind == "zip":
        chunks = _unzipped(data, label, limit, too_big)
    elif kind == "gzip":
        chunks = _gunzipped(data)
    else:
        chunks = _inflated(data, _STREAMS[kind])
    try:  # the chunks are made as they are joined, so damage shows here
        plain = joined_within(chunks, limit, too_big)
    except _CORRUPT as err:
        raise ValueError(
            f"{label} is a damaged or unsupported {kind} file ({error_reason(err)}): "
            "compress it again or give the plain file."
        ) from None
    if _compression(plain):
        raise ValueError(f"{label} holds another compressed file: decompress it fully and give the plain file.")
    return plain


def _inflated(data: bytes, decompressor: Callable) -> Iterator[bytes]:
    """The content of concatenated compressed streams, at most one chunk per step."""
    rest = data
    while rest:
        stream = decompressor()
        piece = stream.decompress(rest, CHUNK)
        while True:
            yield piece
            if stream.eof:
                break
            if stream.needs_input:
                raise EOFError("the compressed data ends before its end marker")
            piece = stream.decompress(b"", CHUNK)
        rest = stream.unused_data


def _gunzipped(data: bytes) -> Iterator[bytes]:
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:  # reads every member, inflating chunk by chunk
        yield from chunks_of(stream.read)


def _unzipped(data: bytes, label: str, limit: int, too_big: Callable[[], ValueError]) -> Iterator[bytes]:
    """The one file in a zip, chunk by chunk, after checks that read only the directory."""
    entries, directory_size = zip_directory(data)
    if entries > _MAX_ZIP_ENTRIES or directory_size > _MAX_ZIP_DIRECTORY:
        raise ValueError(
            f"{label} is a zip archive of {entries:,} entries; it must hold one file: zip that file alone."
        )
    archive = zipfile.ZipFile(io.BytesIO(data))
    files = [i for i in archive.infolist() if not i.is_dir() and not i.filename.startswith("__MACOSX/")]
    if len(files) != 1:
        raise ValueError(
            f"{label} is a zip archive of {len(files)} files; it must hold exactly one: zip that file alone."
        )
    (info,) = files
    if info.flag_bits & 0x1:
        raise ValueError(f"{label} is password-protected: give it without a password.")
    if info.file_size > limit:
        raise too_big()  # the declared size; the stream is capped as well, in case it lies
    with archive.open(info) as member:
        yield from chunks_of(member.read)


def zip_directory(data: bytes) -> tuple[int, int]:
    """Entry count and central-directory size from a zip's end records (what zipfile will trust)."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 22 - 0xFFFF))  # the record, then a comment
    if end < 0 or len(data) < end + 22:
        raise zipfile.BadZipFile("no end of central directory")
    entries, size = struct.unpack_from("<HI", data, end + 10)
    locator = end - 20
    if locator >= 56 and data[locator:locator + 4] == b"PK\x06\x07":  # ZIP64: its own record overrides
        record = locator - 56
        if data[record:record + 4] != b"PK\x06\x06":
            raise zipfile.BadZipFile("damaged ZIP64 end record")
        entries, size = struct.unpack_from("<QQ", data, record + 32)
    return entries, size


def _decode(data: bytes, label: str) -> tuple[str, str]:
    """``(text, codec)``; see the module docstring for the rules."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec), codec
            except UnicodeDecodeError as err:
                raise ValueError(
                    f"{label} starts with a {codec.upper()} byte-order mark but is not valid {codec.upper()} "
                    f"(byte {err.start:,}): save it again as UTF-8."
                ) from None
    if b"\x00" in data:
        raise _binary(label)
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as err:
        position = err.start
    match = charset_normalizer.from_bytes(data).best()
    if match is not None and match.chaos <= _MAX_CHAOS and match.coherence >= _MIN_COHERENCE:
        try:
            return data.decode(match.encoding), match.encoding
        except (UnicodeDecodeError, LookupError):
            pass
    raise ValueError(
        f"{label} is not UTF-8 text (first non-UTF-8 byte at position {position:,}) and its encoding "
        "cannot be told with confidence: save it as UTF-8 (in Excel: 'CSV UTF-8'; in a text editor: "
        "encoding UTF-8)."
    )


def _binary(label: str) -> ValueError:
    return ValueError(
        f"{label} contains NUL bytes, so it is binary data, not text (or UTF-16 without a byte-order mark): "
        "give a text file saved as UTF-8."
    )


def _checked_text(data: bytes, limits: InputLimits, label: str) -> str:
    text = _decode(data, label)[0]
    if "\x00" in text:  # UTF-16/32 decode NUL bytes into characters
        raise _binary(label)
    if not text.strip():
        raise ValueError(f"{label} is empty (or only whitespace): give a file with content.")
    if len(text) > limits.max_chars:
        raise ValueError(
            f"{label} has {len(text):,} characters; the limit is {limits.max_chars:,}: use a shorter text."
        )
    return text


def _check_table(text: str, max_rows: int, label: str) -> None:
    """One header, at least one data row, the same number of values on every row, within ``max_rows``.

    pandas pads a short row with NaN without a word, so the rows are counted here first.
    """
    rows = csv.reader(io.StringIO(text, newline=""), strict=True)  # an unclosed quote is an error
    header, count = None, 0
    try:
        for row in rows:
            if len(row) <= 1 and not "".join(row).strip():
                continue  # a blank line, which pandas skips too
            if header is None:
                header = row
                continue
            count += 1
            if count > max_rows:
                raise ValueError(
                    f"{label} has more than {max_rows:,} rows, the limit: use fewer rows "
                    "(a shorter period or a coarser sampling)."
                )
            if len(row) != len(header):
                raise ValueError(
                    f"{label}, line {rows.line_num}, has a different number of values ({len(row)}) than its "
                    f"header has columns ({len(header)}): give every row one value per column "
                    "(quote a value that contains a comma)."
                )
    except csv.Error as err:
        raise ValueError(f"{label} is not a readable CSV file (line {rows.line_num}: {err}): {_CSV_FIX}") from None
    if header is None:
        raise ValueError(f"{label} has no columns: {_CSV_FIX}")
    if count == 0:
        raise ValueError(f"{label} has a header {header!r:.200} but no data rows: add rows below it.")
    repeated = sorted(name for name, n in collections.Counter(header).items() if n > 1 and name.strip())
    if repeated:
        raise ValueError(f"{label} names column(s) {repeated} more than once: give every column its own name.")


# Archives of several files: a .keras model, a run zip, a zipped SavedModel.
MAX_ARCHIVE_ENTRIES = 2000  # a SavedModel has a handful of files, a run zip a dozen, a .keras three
_MAX_RECORD = 4096  # central-directory bytes per entry: a name of a few hundred characters and its extras
_END_RECORDS = 22 + 0xFFFF + 76  # the end record, its longest comment and the ZIP64 locator and record


def open_archive(source: bytes | BinaryIO, limit: int, label: str,
                 max_entries: int = MAX_ARCHIVE_ENTRIES) -> zipfile.ZipFile:  # fmt: skip
    """A zip of several files a user gives (bytes, or a file opened by ``open_regular``), its directory checked.

    Refused before any member is read, from the directory alone: more than ``max_entries``
    entries (counted from the end records, before zipfile builds an object per entry);
    members declared larger than ``limit`` bytes together; a path outside the archive's
    folder (absolute, ``..``, a drive), a link or an encrypted member; a name given twice,
    or as a file and as a folder (``a`` and ``a/b``). Read its members only through
    ``read_member``, ``check_members`` or ``unpack_archive``, which cap what they inflate
    too, since a declared size can lie. ``label`` names the archive in messages.
    """
    file = io.BytesIO(source) if isinstance(source, (bytes, bytearray)) else source
    unreadable = (zipfile.BadZipFile, OSError, EOFError, struct.error, ValueError)  # ValueError: a bad offset
    try:
        size = file.seek(0, io.SEEK_END)
        file.seek(max(0, size - _END_RECORDS))
        entries, directory = zip_directory(file.read())
    except unreadable as err:
        raise ValueError(f"{label} is not a readable zip file ({error_reason(err)}): save or zip it again.") from None
    if entries > max_entries or directory > max_entries * _MAX_RECORD:
        raise ValueError(f"{label} has {entries:,} entries; at most {max_entries:,} are accepted: "
                         "zip the model folder alone.")
    try:
        file.seek(0)
        archive = zipfile.ZipFile(file)
    except unreadable as err:
        raise ValueError(f"{label} is not a readable zip file ({error_reason(err)}): save or zip it again.") from None
    files, folders = set(), set()
    for info in archive.infolist():
        parts = _member_parts(info, label)
        if not info.is_dir():
            if parts in files:
                raise ValueError(f"{label} holds {info.filename!r} twice: zip the model folder again.")
            files.add(parts)
        folders.update(parts[:i] for i in range(1, len(parts) + info.is_dir()))
    clash = sorted(files & folders)
    if clash:
        raise ValueError(f"{label} holds both a file and a folder named {'/'.join(clash[0])!r}; seqlab cannot "
                         "unpack it: zip the model folder again.")
    if sum(i.file_size for i in archive.infolist()) > limit:
        raise _unpacks_too_big(label, limit)
    return archive


def read_member(archive: zipfile.ZipFile, name: str, limit: int, label: str) -> bytes:
    """The member ``name`` of an archive from ``open_archive``, inflated within ``limit`` bytes."""
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise ValueError(f"{label} holds no {name}: give the file as it was saved.") from None
    if info.file_size > limit:
        raise _unpacks_too_big(label, limit, name)
    return joined_within((chunk for _, chunk in _members(archive, [info], limit, label)), limit,
                   lambda: _unpacks_too_big(label, limit, name))


def check_members(archive: zipfile.ZipFile, limit: int, label: str) -> None:
    """Inflate every member of an archive from ``open_archive`` and drop it: ``ValueError`` past ``limit`` bytes in
    all, or for a damaged member. For an archive another library reads afterwards (Keras, a ``.keras`` file)."""
    for _ in _members(archive, archive.infolist(), limit, label):
        pass


def unpack_archive(archive: zipfile.ZipFile, folder: Path, limit: int, label: str) -> None:
    """Write the files of an archive from ``open_archive`` into ``folder`` (macOS's ``__MACOSX`` left out), at most
    ``limit`` bytes in all."""
    wanted = [i for i in archive.infolist() if not i.is_dir() and _member_parts(i, label)[0] != "__MACOSX"]
    try:
        with contextlib.ExitStack() as files:
            for info, chunk in _members(archive, wanted, limit, label):
                if not chunk:  # a member starts
                    files.close()
                    path = folder.joinpath(*_member_parts(info, label))
                    path.parent.mkdir(parents=True, exist_ok=True)
                    out = files.enter_context(open(path, "xb"))
                out.write(chunk)
    except OSError as err:  # the server's disk, not the archive
        raise ValueError(f"{label} cannot be unpacked here ({error_reason(err)}): try again later.") from None


def _member_parts(info: zipfile.ZipInfo, label: str) -> tuple[str, ...]:
    """The member's path as parts; ``ValueError`` for one outside the archive's folder, a link or encryption."""
    parts = PurePosixPath(info.filename.replace("\\", "/")).parts
    if not parts or parts[0] == "/" or ".." in parts or ":" in parts[0]:
        raise ValueError(f"{label} has an entry outside its folder ({info.filename!r}); seqlab refuses it: zip the "
                         "model folder again.")
    if stat.S_ISLNK(info.external_attr >> 16) or info.flag_bits & 0x1:
        raise ValueError(f"{label} holds a link or an encrypted file ({info.filename!r}): zip the model folder "
                         "again, without links or a password.")
    return parts


def _members(archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo], limit: int,
             label: str) -> Iterator[tuple[zipfile.ZipInfo, bytes]]:  # fmt: skip
    """``(member, chunk)`` for every chunk of ``infos`` as it is inflated (an empty chunk first: the member starts),
    refused once ``limit`` bytes are passed."""
    total = 0
    try:
        for info in infos:
            yield info, b""
            with archive.open(info) as member:
                for chunk in chunks_of(member.read):
                    total += len(chunk)
                    if total > limit:
                        raise _unpacks_too_big(label, limit)
                    yield info, chunk
    except _CORRUPT as err:
        raise ValueError(f"{label} is damaged ({type(err).__name__}: {error_reason(err)}): zip it again.") from None


def _unpacks_too_big(label: str, limit: int, member: str | None = None) -> ValueError:
    what = f"its {member}" if member else "it"
    return ValueError(f"{label} is too big: {what} unpacks to more than {size_text(limit)}, the limit: use a smaller "
                      "model.")
