"""A tiny tarball with the layout of the sktime==1.2.0 sdist's Japanese vowels files, so tests never download 36 MB."""

import io
import tarfile

import numpy as np

from seqlab.data.corpora.japanese_vowels import FILES

HEADER = """#A tiny stand-in for the UEA & UCR archive's JapaneseVowels
@problemName JapaneseVowels
@timeStamps false
@missing false
@univariate false
@dimensions 12
@equalLength false
@classLabel true 1 2 3
@data
"""
LENGTHS = {"train": [3, 5, 4, 6, 3, 5, 4, 6, 3, 5, 4, 6], "test": [4, 6, 3, 7, 5, 4]}  # 4 a speaker, then 2


def case_line(rng, length, label):
    """One case: 12 dimensions of ``length`` values (``:``-separated), then the label; never a frame of zeros."""
    values = rng.uniform(0.1, 1.0, (12, length)) * rng.choice([-1, 1], (12, length)) + int(label)
    return ":".join(",".join(f"{v:.6f}" for v in row) for row in values) + f":{label}"


def ts_file(split, seed=0):
    """A .ts file of the 3 speakers: 4 utterances each to train, 2 to test, speakers in turn."""
    rng = np.random.default_rng(seed)
    lengths = LENGTHS[split]
    return HEADER + "\n".join(case_line(rng, n, str(1 + i % 3)) for i, n in enumerate(lengths)) + "\n"


def make_vowels_sdist(path, members=None):
    """Writes a .tar.gz at ``path`` with ``members`` (name -> text): the two .ts files by default."""
    members = {FILES["train"]: ts_file("train"), FILES["test"]: ts_file("test", seed=1)} if members is None else members
    with tarfile.open(path, "w:gz") as archive:
        for name, text in {"sktime-1.2.0/README.md": "not data", **members}.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def cache_vowels_sdist(cache_root):
    """The fake sdist where the loader looks for it under ``$SEQLAB_CACHE=cache_root``."""
    folder = cache_root / "japanese_vowels"
    folder.mkdir(parents=True, exist_ok=True)
    return make_vowels_sdist(folder / "sktime-1.2.0.tar.gz")
