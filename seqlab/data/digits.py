"""Handwritten digits read row by row: an image as a sequence (the notes' "beyond text").

scikit-learn's 1,797 digits of 8x8 pixels (values 0-16, UCI optical
recognition data), shipped inside the package: each image is read top to
bottom as a sequence of T = 8 rows of 8 pixel values, and the task is to name
the digit (10 classes) from the whole sequence.
"""

from __future__ import annotations

import numpy as np

from seqlab.data.sample_source import Samples, register_samples


def digits_samples(seed: int = 0) -> Samples:
    """Images ``(1797, 8 rows, 8 columns)`` in an order shuffled by ``seed``, and their digits."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    # The file lists digits writer by writer: shuffle so every split holds every writer style.
    order = np.random.default_rng(seed).permutation(len(digits.target))
    x = digits.images[order].astype("float32")  # (N, T=8 rows, F=8 pixels)
    y = digits.target[order].astype("int32")
    return Samples(
        x, y, features=tuple(f"col{j}" for j in range(8)), target="digit",
        classes=tuple(str(d) for d in range(10)),
    )


register_samples(
    name="digits",
    title="Handwritten digits, read row by row (8x8 images)",
    task="classify",
    description=(
        "1,797 handwritten digits of 8x8 pixels; each image is a sequence of its 8 rows (8 pixel "
        "values each, 0-16). Classify the digit from the sequence, against the majority class."
    ),
    source="scikit-learn sklearn.datasets.load_digits (UCI optical recognition of handwritten digits)",
    licence="CC BY 4.0 (UCI Machine Learning Repository)",
    generate=digits_samples,
    defaults={"seed": 0, "val_fraction": 0.15, "test_fraction": 0.15},
    scale=True,
    units={f"col{j}": "intensity 0-16" for j in range(8)},
    kinds=frozenset({"image"}),
)
