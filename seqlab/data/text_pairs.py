"""Pairs of texts as translation data: a split, two tokenisers fitted on training, padded ids, one EOS.

``pair_data`` is what every pairs dataset's loader returns (``numbers_en_de``,
``dates``, ``toy_pairs``, ``ding_en_de``, ``pairs``), given the source and the
target strings (seed 004's encoder-decoder: read the source, write the target,
stop at ``[EOS]``):

1. pairs with a side that is empty after standardisation are dropped (said in
   ``load_notes``);
2. the split: given per pair (a dataset that holds some items out, e.g. numbers
   never seen in training), else shuffled by ``seed`` with ``floor(N x
   val_fraction)`` pairs validating and ``floor(N x test_fraction)`` testing;
3. the source tokeniser is fitted on the training sources only, the target
   tokeniser (with ``[START]`` = 2 and ``[EOS]`` = 3 after ``[PAD]`` and
   ``[UNK]``) on the training targets only, so a character seen only in the
   test split is ``[UNK]``;
4. ``x`` (N, S): source ids trimmed to their first ``max_source_tokens`` (S,
   the lookback; counted in ``load_notes``) and padded with 0 at the end;
   ``mask`` is False on the padding;
5. ``y`` (N, L): target ids, one ``[EOS]``, then 0 padding, with L the longest
   target + 1 or ``max_target_tokens`` + 1; a pair whose target is longer is
   dropped (counted), never trimmed, since a cut target would teach the decoder
   to stop mid-sentence.

Each split's ``teacher`` is the decoder's input under teacher forcing, ``[START]``
followed by ``y[:, :-1]`` (``shift_right``).
The frame holds one row per kept pair (columns ``source``, ``target`` as given,
``split``); each split's ``origin`` is the row of its pairs there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from seqlab.checks import Range
from seqlab.data.sequence_data import SequenceData, Split
from seqlab.data.text_classes import SPLITS
from seqlab.data.text_windows import TEXT_CHOICES, TEXT_DEFAULTS, TEXT_RANGES, make_tokenizer
from seqlab.limits import check_data_size
from seqlab.text import Standardize
from seqlab.text.tokenizer import EOS, START
from seqlab.text.visible import has_visible

TARGET_SPECIALS = (START, EOS)  # ids 2 and 3 of the target vocabulary
START_ID, EOS_ID = 2, 3
# The shared text options, kept as given (a translation's case, punctuation and spacing are part of it).
PAIR_TEXT_DEFAULTS = {
    **{k: TEXT_DEFAULTS[k] for k in ("tokenizer", "vocab_size", "lowercase", "strip_punctuation",
                                     "collapse_whitespace")},  # the embeddings' size is the model's option
    "max_source_tokens": 0,  # S, the lookback: longer sources keep their first S tokens; 0: the longest source
    "max_target_tokens": 0,  # L - 1: pairs with longer targets are dropped; 0: the longest target
    "val_fraction": 0.1,
    "test_fraction": 0.1,
    "seed": 0,
}  # fmt: skip
PAIR_TEXT_CHOICES = TEXT_CHOICES
PAIR_TEXT_RANGES = {
    "vocab_size": TEXT_RANGES["vocab_size"],
    "max_source_tokens": Range(0, 100_000, limit="max_sequence_length"),
    "max_target_tokens": Range(0, 100_000, limit="max_sequence_length"),
}


def random_split(n: int, val_fraction: float, test_fraction: float, seed: int) -> np.ndarray:
    """The split name of each of ``n`` items, shuffled by ``seed`` (module docstring, step 2)."""
    order = np.random.default_rng(seed).permutation(n)
    n_val, n_test = int(n * val_fraction), int(n * test_fraction)
    names = np.full(n, "train", dtype=object)
    names[order[:n_val]] = "val"
    names[order[n_val : n_val + n_test]] = "test"
    return names


def pair_data(
    name: str,
    sources: Sequence[str],
    targets: Sequence[str],
    options: dict,
    notes: Sequence[str] = (),
    split: Sequence[str] | None = None,
    columns: dict[str, Sequence] | None = None,
) -> SequenceData:
    """``SequenceData`` of task ``translate`` (module docstring).

    Args:
        sources, targets: one source and one target string per pair, as given.
        options: the dataset's resolved options: those of ``PAIR_TEXT_DEFAULTS`` and the
            dataset's own (kept in ``SequenceData.options``).
        notes: what the caller's loading already changed, kept first in ``load_notes``.
        split: ``"train"``, ``"val"`` or ``"test"`` per pair; ``None``: a random split by
            ``val_fraction``, ``test_fraction`` and ``seed``.
        columns: more columns of the frame, one value per pair (a number, a locale), put first.
    """
    sources, targets, notes = list(sources), list(targets), list(notes)
    if len(sources) != len(targets):
        raise ValueError(f"{len(sources):,} sources but {len(targets):,} targets: give one target per source.")
    if split is not None:
        split = np.asarray(split, dtype=object)
        unknown = sorted(set(split) - set(SPLITS))
        if len(split) != len(sources) or unknown:
            raise ValueError(
                f"split must name one of {SPLITS} per pair ({len(sources):,}), got {len(split):,} names"
                + (f" with unknown ones {unknown[:5]}." if unknown else ".")
            )
    kind, size = options["tokenizer"], options["vocab_size"]
    standardize = Standardize(options["lowercase"], options["strip_punctuation"], options["collapse_whitespace"])
    keep = np.array([has_visible(standardize(s)) and has_visible(standardize(t)) for s, t in zip(sources, targets)])
    if not keep.any():
        raise ValueError(
            f"Every one of the {len(sources):,} pairs has an empty side (or one of only whitespace, zero-width "
            "characters or punctuation after standardisation): give pairs with text on both sides."
        )
    if not keep.all():
        notes.append(
            f"Dropped {int((~keep).sum()):,} of {len(sources):,} pairs with an empty side (or one of only "
            "whitespace, zero-width characters or punctuation after standardisation)."
        )
    rows = np.flatnonzero(keep)
    split = random_split(len(rows), options["val_fraction"], options["test_fraction"], options["seed"]) \
        if split is None else split[rows]  # fmt: skip
    _check_splits(split, options)
    train = rows[split == "train"]
    source_tokenizer = make_tokenizer(kind, size, standardize).fit([sources[i] for i in train])
    target_tokenizer = make_tokenizer(kind, size, standardize, TARGET_SPECIALS).fit([targets[i] for i in train])
    eos = target_tokenizer.special_id(EOS)
    source_ids = [source_tokenizer.encode(sources[i]) for i in rows]
    target_ids = [target_tokenizer.encode(targets[i]) for i in rows]

    target_lengths = np.array([len(t) for t in target_ids])
    max_target = options["max_target_tokens"] or int(target_lengths.max())
    fits = target_lengths <= max_target
    if not fits.any():
        raise ValueError(
            f"Every target is longer than max_target_tokens = {max_target:,} {kind} tokens (the shortest has "
            f"{target_lengths.min():,}): raise max_target_tokens, or 0 for the longest target."
        )
    if not fits.all():
        notes.append(
            f"Dropped {int((~fits).sum()):,} of {len(rows):,} pairs whose target is longer than max_target_tokens "
            f"= {max_target:,} {kind} tokens (the longest has {target_lengths.max():,}): raise max_target_tokens to "
            "keep them."
        )
        rows, split = rows[fits], split[fits]
        _check_splits(split, options)
        source_ids = [s for s, f in zip(source_ids, fits) if f]
        target_ids = [t for t, f in zip(target_ids, fits) if f]
    source_lengths = np.array([len(s) for s in source_ids])
    lookback = options["max_source_tokens"] or max(int(source_lengths.max()), 1)
    long = int((source_lengths > lookback).sum())
    if long:
        notes.append(
            f"{long:,} of {len(rows):,} sources are longer than max_source_tokens = {lookback:,} {kind} tokens "
            f"(the longest has {source_lengths.max():,}) and were trimmed to their first {lookback:,}: raise "
            "max_source_tokens to keep them whole."
        )
    if target_tokenizer.note:
        notes.append(f"Target side: {target_tokenizer.note}")
    horizon = max_target + 1  # L: room for the longest target and its one EOS
    check_data_size(len(rows), lookback, 1, outputs=horizon, what="the pairs")
    x, mask = source_tokenizer.pad_and_mask(source_ids, lookback, keep="first")  # (N, S) int32, bool
    y, _ = target_tokenizer.pad_and_mask([t + [eos] for t in target_ids], horizon)  # (N, L) int32
    frame = pd.DataFrame({
        **{column: np.asarray(values)[rows] for column, values in (columns or {}).items()},
        "source": [sources[i] for i in rows], "target": [targets[i] for i in rows], "split": split,
    })  # fmt: skip
    at = {s: np.flatnonzero(split == s) for s in SPLITS}
    return SequenceData(
        name=name,
        task="translate",
        frame=frame,
        features=("source",),
        target="target",
        units={},
        lookback=lookback,
        horizon=horizon,
        splits={s: Split(x=x[r], y=y[r], origin=r, mask=mask[r], teacher=shift_right(y[r])) for s, r in at.items()},
        options=dict(options),
        tokenizer=source_tokenizer,
        target_tokenizer=target_tokenizer,
        load_notes=tuple(notes),
    )


def shift_right(y: np.ndarray) -> np.ndarray:
    """The decoder's input under teacher forcing: ``[START]`` then ``y`` without its last step ``(N, L)``."""
    y = np.asarray(y, dtype="int32")
    return np.concatenate([np.full((len(y), 1), START_ID, dtype="int32"), y[:, :-1]], axis=1)


def _check_splits(split: np.ndarray, options: dict) -> None:
    """Refuse a split left empty, saying how many pairs would fill it."""
    empty = [s for s in SPLITS if not (split == s).any()]
    if empty:
        needed = int(np.ceil(1 / min(options["val_fraction"], options["test_fraction"])))
        raise ValueError(
            f"Too few pairs: {len(split):,} pairs leave the {' and '.join(empty)} split(s) empty (val_fraction "
            f"{options['val_fraction']:g}, test_fraction {options['test_fraction']:g}). Give at least {needed:,} "
            "pairs, or raise the fractions."
        )
