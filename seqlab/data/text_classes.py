"""Labelled texts as classification data: the split, a tokeniser fitted on training, padded ids and a mask.

``text_class_data`` is what every text classification dataset's loader returns
(``movie_sentiment``, ``textcsv``), given the texts and their class names:

1. texts that are empty after standardisation are dropped (said in ``load_notes``);
   at least two classes must remain;
2. a stratified split shuffled by ``seed``: each class gives
   ``floor(count x val_fraction)`` of its texts to validation and
   ``floor(count x test_fraction)`` to test, the rest trains, so every split has
   the classes' proportions and training sees every class;
3. the tokeniser (char, word or BPE, after the recorded ``Standardize``) is fitted
   on the training texts only; texts of unknown words only become ``[UNK]`` ids;
4. each text's ids are trimmed to their first ``max_tokens`` (the lookback T,
   counted in ``load_notes``) and padded with ``PAD_ID`` at the end; ``mask`` is
   False on the padding (seed 001's many-to-one: one class per sequence).

The frame holds one row per kept text (columns ``text``, ``label``, ``split``), and
each split's ``origin`` is the row of its texts there, so a classical peer (a
TF-IDF model) can be fitted on exactly the same split.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from seqlab.checks import Range
from seqlab.data.sequence_data import SequenceData, Split
from seqlab.data.text_windows import TEXT_CHOICES, TEXT_DEFAULTS, TEXT_RANGES, make_tokenizer
from seqlab.limits import check_data_size
from seqlab.text import Standardize

SPLITS = ("train", "val", "test")
# The shared text options, with defaults for sentences: a sentence's class lies in its words, which
# need no case or spacing to be told apart (a language model keeps both, so its defaults differ).
CLASS_TEXT_DEFAULTS = {
    **{k: TEXT_DEFAULTS[k] for k in ("embedding_dim", "strip_punctuation")},
    "tokenizer": "word",
    "vocab_size": 10_000,
    "lowercase": True,
    "collapse_whitespace": True,
    "max_tokens": 64,  # T: longer texts keep their first 64 tokens (all but 2 movie-review sentences fit)
    "val_fraction": 0.1,
    "test_fraction": 0.1,
    "seed": 0,
}
CLASS_TEXT_CHOICES = TEXT_CHOICES
CLASS_TEXT_RANGES = {
    **{k: TEXT_RANGES[k] for k in ("vocab_size", "embedding_dim")},
    "max_tokens": Range(1, 100_000, limit="max_sequence_length"),
}


def stratified_split(y: np.ndarray, val_fraction: float, test_fraction: float, seed: int) -> dict[str, np.ndarray]:
    """Split name -> the sorted rows of ``y`` (class ids) it holds (module docstring, step 2)."""
    rng = np.random.default_rng(seed)
    parts = {split: [] for split in SPLITS}
    for c in np.unique(y):
        rows = rng.permutation(np.flatnonzero(y == c))
        n_val, n_test = int(len(rows) * val_fraction), int(len(rows) * test_fraction)
        parts["val"].append(rows[:n_val])
        parts["test"].append(rows[n_val : n_val + n_test])
        parts["train"].append(rows[n_val + n_test :])
    return {split: np.sort(np.concatenate(rows)) for split, rows in parts.items()}


def text_class_data(
    name: str,
    texts: Sequence[str],
    labels: Sequence[str],
    classes: Sequence[str],
    *,
    tokenizer: str,
    vocab_size: int,
    embedding_dim: int,
    lowercase: bool,
    strip_punctuation: bool,
    collapse_whitespace: bool,
    max_tokens: int,
    val_fraction: float,
    test_fraction: float,
    seed: int,
    label_name: str = "label",
    notes: Sequence[str] = (),
    extra_options: dict | None = None,
) -> SequenceData:
    """``SequenceData`` of task ``classify`` (module docstring); options as ``CLASS_TEXT_DEFAULTS``.

    Args:
        texts, labels: one class name (one of ``classes``) per text.
        classes: the class names in id order.
        label_name: what the labels are called in messages ("the label column 'stars'").
        notes: what the caller's loading already changed, kept first in ``load_notes``.
        extra_options: the caller's own resolved options (a file, its columns), kept in ``options``.
    """
    standardize = Standardize(lowercase, strip_punctuation, collapse_whitespace)
    texts, labels = list(texts), list(labels)
    keep = np.array([bool(standardize(text).strip()) for text in texts], dtype=bool)
    notes = list(notes)
    if not keep.any():
        raise ValueError(
            f"All {len(texts):,} texts are empty (or only whitespace or punctuation after standardisation): "
            "give texts with words in them."
        )
    if not keep.all():
        notes.append(
            f"Dropped {int((~keep).sum()):,} of {len(texts):,} rows whose text is empty (or only whitespace or "
            "punctuation after standardisation)."
        )
    kept = [t for t, k in zip(texts, keep) if k]
    index = {c: i for i, c in enumerate(classes)}
    y = np.array([index[label] for label, k in zip(labels, keep) if k], dtype="int32")  # (N,)
    present = np.unique(y)
    if len(present) < 2:
        raise ValueError(
            f"{label_name[:1].upper()}{label_name[1:]} has one class only ({classes[present[0]]!r} on every "
            f"kept row): a classifier needs texts of at least two classes."
        )
    rows = stratified_split(y, val_fraction, test_fraction, seed)
    _check_rows(rows, len(kept), val_fraction, test_fraction)
    check_data_size(len(kept), max_tokens, 1, outputs=1, what="the texts")
    fitted = make_tokenizer(tokenizer, vocab_size, standardize).fit([kept[i] for i in rows["train"]])
    ids = [fitted.encode(text) for text in kept]
    lengths = np.array([len(seq) for seq in ids])
    long = int((lengths > max_tokens).sum())
    if long:
        notes.append(
            f"{long:,} of {len(kept):,} texts are longer than max_tokens = {max_tokens:,} {tokenizer} tokens (the "
            f"longest has {lengths.max():,}) and were trimmed to their first {max_tokens:,}: raise max_tokens to "
            "keep them whole."
        )
    x, mask = fitted.pad_and_mask(ids, max_tokens, keep="first")  # (N, T) int32, (N, T) bool
    split_of = np.empty(len(kept), dtype=object)
    for split, chosen in rows.items():
        split_of[chosen] = split
    frame = pd.DataFrame({"text": kept, "label": [classes[i] for i in y], "split": split_of})
    return SequenceData(
        name=name,
        task="classify",
        frame=frame,
        features=("text",),
        target="label",
        units={},
        lookback=max_tokens,
        horizon=1,
        splits={split: Split(x=x[r], y=y[r], origin=r, mask=mask[r]) for split, r in rows.items()},
        options={
            **(extra_options or {}),
            "tokenizer": tokenizer, "vocab_size": vocab_size, "embedding_dim": embedding_dim, "lowercase": lowercase,
            "strip_punctuation": strip_punctuation, "collapse_whitespace": collapse_whitespace,
            "max_tokens": max_tokens, "val_fraction": val_fraction, "test_fraction": test_fraction, "seed": seed,
        },  # fmt: skip
        classes=tuple(classes),
        tokenizer=fitted,
        load_notes=tuple(notes),
    )


def _check_rows(rows: dict[str, np.ndarray], n: int, val_fraction: float, test_fraction: float) -> None:
    """Refuse a split left empty, saying how many texts would fill it."""
    empty = [split for split in SPLITS if not len(rows[split])]
    if empty:
        needed = int(np.ceil(1 / min(val_fraction, test_fraction)))
        raise ValueError(
            f"Too few rows: {n:,} texts with val_fraction {val_fraction:g} and test_fraction {test_fraction:g} "
            f"leave the {' and '.join(empty)} split(s) empty (each class gives that share of its texts, rounded "
            f"down, to each). Give at least {needed:,} texts of one class, or raise the fractions."
        )
