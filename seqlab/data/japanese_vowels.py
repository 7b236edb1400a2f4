"""The ``japanese_vowels`` dataset: name the speaker of an utterance, sequences of different lengths.

The 640 utterances of ``seqlab.data.corpora.japanese_vowels`` (fetched once
into the user's cache): each is 7 to 29 frames of 12 LPC cepstrum
coefficients, padded at the end with zeros to the longest (T = 29) and masked
(``Split.mask`` False on the padding, which the models skip). The published
split is kept: the 370 test utterances test; the validation utterances are
drawn from the 270 training ones, the same share of every speaker (seed).
"""

from __future__ import annotations

import numpy as np

from seqlab.data.corpora.japanese_vowels import LICENCE, PACKAGE, VERSION, load_japanese_vowels
from seqlab.data.corpora.ts_format import TsCases
from seqlab.data.registry import DatasetInfo, register
from seqlab.data.sample_source import Samples, long_frame, sample_data
from seqlab.data.sequence_data import SequenceData

COEFFICIENTS = 12
FEATURES = tuple(f"lpc{i}" for i in range(1, COEFFICIENTS + 1))
UNITS = {name: "LPC cepstrum coefficient" for name in FEATURES}
DEFAULTS = {"seed": 0, "val_fraction": 0.2}


def padded(cases: list[np.ndarray], steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Sequences ``(T_i, F)`` -> ``x`` ``(N, steps, F)`` zero-padded at the end, and the mask ``(N, steps)``."""
    x = np.zeros((len(cases), steps, cases[0].shape[1]), dtype="float32")
    mask = np.zeros((len(cases), steps), dtype=bool)
    for i, case in enumerate(cases):
        x[i, : len(case)] = case
        mask[i, : len(case)] = True
    return x, mask


def vowel_samples(published: dict[str, TsCases], order: np.ndarray) -> Samples:
    """Training utterances in ``order`` (indices into the training file), then the test file's in file order."""
    train, test = published["train"], published["test"]
    cases = [train.values[i] for i in order] + list(test.values)
    labels = [train.labels[i] for i in order] + list(test.labels)
    if any(case.shape[1] != COEFFICIENTS for case in cases):
        raise ValueError(f"Every utterance must have {COEFFICIENTS} coefficients a frame; give the real sdist.")
    x, mask = padded(cases, max(len(case) for case in cases))
    y = np.array([train.class_labels.index(label) for label in labels], dtype="int32")
    classes = tuple(f"speaker {label}" for label in train.class_labels)
    return Samples(x, y, features=FEATURES, target="speaker", classes=classes, mask=mask)


def validation_rows(labels: tuple[str, ...], val_fraction: float, seed: int) -> np.ndarray:
    """The training file's rows that validate: ``val_fraction`` of every speaker's (at least one), drawn by ``seed``."""
    rng = np.random.default_rng(seed)
    labels = np.asarray(labels)
    rows = [
        rng.permutation(np.flatnonzero(labels == label))[: max(1, round(val_fraction * np.sum(labels == label)))]
        for label in dict.fromkeys(labels)
    ]
    return np.sort(np.concatenate(rows))


def load_vowels(seed: int, val_fraction: float) -> SequenceData:
    published = load_japanese_vowels()
    n_train = len(published["train"].labels)
    val = validation_rows(published["train"].labels, val_fraction, seed)
    fit = np.random.default_rng(seed).permutation(np.setdiff1d(np.arange(n_train), val))
    samples = vowel_samples(published, np.concatenate([fit, val]))
    bounds = {"train": (0, len(fit)), "val": (len(fit), n_train), "test": (n_train, len(samples.y))}
    options = {"seed": seed, "val_fraction": val_fraction}
    return sample_data("japanese_vowels", "classify", samples, UNITS, True, bounds, options)


def vowels_frame():
    """One row per real frame of every utterance (the training file's first, in file order), for the Data page."""
    published = load_japanese_vowels()
    return long_frame(vowel_samples(published, np.arange(len(published["train"].labels))))


register(
    DatasetInfo(
        name="japanese_vowels",
        title="Japanese vowels: who is speaking? (sequences of different lengths)",
        task="classify",
        description=(
            "640 utterances of the Japanese vowels /ae/ by nine male speakers, each 7 to 29 frames of 12 LPC "
            "cepstrum coefficients: name the speaker. Shorter utterances are padded at the end with zeros "
            "to 29 frames and masked, so the models skip the padding. The published split: 270 training "
            "utterances (30 a speaker; a stratified share validates) and 370 test ones (24 to 88 a speaker). "
            "Fetched once with `pip download` (the 36 MB sktime source distribution) into your cache folder "
            "($SEQLAB_CACHE or ~/.cache/seqlab)."
        ),
        source=(
            f"PyPI source distribution {PACKAGE}=={VERSION}, sktime/datasets/data/JapaneseVowels/"
            "JapaneseVowels_TRAIN.ts and _TEST.ts (UEA & UCR archive); UCI Japanese Vowels, Kudo, Toyama & "
            "Shimbo (1999), Multidimensional curve classification using passing-through regions"
        ),
        licence=LICENCE,
        frame=vowels_frame,
        load=load_vowels,
        defaults=dict(DEFAULTS),
        units=UNITS,
    )
)
