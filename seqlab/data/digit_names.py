"""The ``digit_names`` dataset: an image in, its digit's name out, letter by letter (one-to-many captioning).

scikit-learn's 1,797 handwritten digits (``seqlab.data.digits``), each read as a sequence of its 8 rows of 8
pixel values (0-16), are the sources; the targets are the digits' English names ("seven"), one character a
step, so an encoder-decoder writes a caption for an image, and its attention says which rows it looked at
for every letter. The notes' one-to-many shape: one input (the image), a sequence out.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from seqlab.data.digits import digits_samples
from seqlab.data.registry import DatasetInfo, register
from seqlab.data.scaler import Scaler
from seqlab.data.sequence_data import SequenceData, Split
from seqlab.data.text_pairs import EOS_ID, TARGET_SPECIALS, random_split, shift_right
from seqlab.data.text_windows import make_tokenizer
from seqlab.text import Standardize

NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
DEFAULTS = {"val_fraction": 0.15, "test_fraction": 0.15, "seed": 0}


def load_digit_names(val_fraction: float, test_fraction: float, seed: int) -> SequenceData:
    samples = digits_samples(seed)  # images (N, 8 rows, 8 pixels), shuffled by seed
    names = [NAMES[int(d)] for d in samples.y]
    split = random_split(len(names), val_fraction, test_fraction, seed)
    train = split == "train"
    target = make_tokenizer("char", 0, Standardize(False, False, False), TARGET_SPECIALS).fit(
        [n for n, t in zip(names, train) if t])
    horizon = max(len(n) for n in NAMES) + 1  # L: the longest name and its [EOS]
    y, _ = target.pad_and_mask([target.encode(n) + [EOS_ID] for n in names], horizon)
    x = samples.x.astype("float32")
    frame = pd.DataFrame({"source": [f"an image of a handwritten {int(d)}" for d in samples.y], "target": names,
                          "split": split})
    at = {s: np.flatnonzero(split == s) for s in ("train", "val", "test")}
    return SequenceData(
        name="digit_names", task="translate", frame=frame, features=samples.features, target="name",
        units={f: "intensity 0-16" for f in samples.features}, lookback=x.shape[1], horizon=horizon,
        splits={s: Split(x=x[r], y=y[r], origin=r, teacher=shift_right(y[r])) for s, r in at.items()},
        scaler=Scaler.fit(x[train].reshape(-1, x.shape[-1])),
        options={"val_fraction": val_fraction, "test_fraction": test_fraction, "seed": seed},
        target_tokenizer=target,
    )


register(
    DatasetInfo(
        name="digit_names",
        title="Handwritten digits to their names (image captioning, one-to-many)",
        task="translate",
        description=(
            "1,797 handwritten digits of 8x8 pixels, each read row by row by the encoder; the decoder writes "
            "the digit's name letter by letter (\"seven\"). The notes' one-to-many shape, as in image "
            "captioning: attention shows which rows of the image each letter was written from."
        ),
        source="scikit-learn sklearn.datasets.load_digits (UCI optical recognition of handwritten digits)",
        licence="CC BY 4.0 (UCI Machine Learning Repository)",
        frame=lambda: load_digit_names(**DEFAULTS).frame,
        load=load_digit_names,
        defaults=dict(DEFAULTS),
    )
)
