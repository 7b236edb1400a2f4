"""SequenceData: what every dataset loader returns, whatever the task.

The container assumes no dtype and no fixed length: a split holds inputs
``x`` and targets ``y`` of any dtype (float windows, token ids), with an
optional ``mask`` for variable-length sequences. What numeric data adds, the
``Scaler``, is an optional field that the numeric tasks use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from seqlab.data.scaler import Scaler

if TYPE_CHECKING:
    from seqlab.text import Tokenizer

# forecast: windows of one series -> the next H values; regress: a sequence -> real values
# (many-to-one); classify: a sequence -> one class (many-to-one); label: a class at every
# step (many-to-many aligned); language and translate: text models; masked_lm: BERT's pre-training.
TASKS = ("forecast", "regress", "classify", "label", "language", "translate", "masked_lm")


@dataclass(frozen=True)
class Split:
    """One split of examples: inputs, targets, where each came from, and which steps are real.

    For the numeric tasks ``x`` is ``(N, T, F)`` floats in the data's own
    units; ``y`` is ``(N, H)`` for a forecast or a regression, ``(N,)`` class
    ids for classify, ``(N, T)`` class ids for label. Other tasks may hold
    token ids ``(N, T)`` or anything a task's inputs declare. ``origin`` is,
    for a forecast, the row of the frame at which each window's first target
    step lies (used by baselines and plots); for independent sequences, the
    sample number (level ``sample`` of the frame). ``mask``: ``(N, T)``
    booleans, ``False`` on padding, for variable-length sequences (``None``:
    every step is real). ``future``: a forecast's known future inputs
    ``(N, H, K)`` in their own units, the rows ``o .. o+H-1`` of the columns
    known ahead (``SequenceData.known``); ``None`` when none are used.
    ``teacher``: a translation's decoder input under teacher forcing ``(N, L)``,
    the target shifted right behind ``[START]`` (``seqlab.data.text_pairs``).
    """

    x: np.ndarray
    y: np.ndarray
    origin: np.ndarray
    mask: np.ndarray | None = None
    future: np.ndarray | None = None
    teacher: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.x)

    @property
    def inputs(self) -> np.ndarray | list[np.ndarray]:
        """What the model takes: ``x``, or ``[x, future]`` (known future inputs), or ``[x, teacher]``."""
        others = [a for a in (self.future, self.teacher) if a is not None]
        return [self.x, *others] if others else self.x

    def inputs_of(self, rows: slice | np.ndarray) -> np.ndarray | list[np.ndarray]:
        """``inputs`` of the examples ``rows`` only."""
        others = [a[rows] for a in (self.future, self.teacher) if a is not None]
        return [self.x[rows], *others] if others else self.x[rows]


@dataclass(frozen=True)
class SequenceData:
    """A dataset ready for training: the raw frame plus windowed splits.

    Attributes:
        name: registry name of the dataset.
        task: one of ``TASKS``.
        frame: the raw data, one row per time step: for a forecast the series
            (index = time); for independent sequences a long table indexed by
            ``(sample, t)`` with the features and the target (a per-sequence
            target repeated on the sequence's rows).
        features: input feature order (target first for a forecast).
        target: the column to predict.
        units: column -> unit string, for axes.
        lookback: T, the number of steps the model sees (the sequence length
            for independent sequences).
        horizon: H, the number of future steps a forecast predicts; for the
            other tasks, the outputs per sequence (regress: values, classify: 1,
            label: T).
        seasons: season name -> period in steps (``{"day": 48, "week": 336}``),
            for seasonal-naive baselines.
        splits: ``"train"``, ``"val"``, ``"test"`` -> ``Split``.
        scaler: numeric data only: fitted on the training rows, over
            ``features`` (``None`` for data that is not scaled, e.g. tokens).
        options: the resolved loader options, for the run's spec.
        classes: class names, index = class id (classify and label tasks).
        target_tokenizer: translate only: the target side's tokeniser (fitted on the
            training targets, with ``[START]`` and ``[EOS]`` as ids 2 and 3);
            ``tokenizer`` is then the source side's.
        tokenizer: text data only: the tokeniser fitted on the training split,
            whose ids ``x`` and ``y`` hold (``None`` for numeric data).
        known: a forecast's columns whose values over the horizon the model
            is given (a weather forecast, the calendar): the second input
            ``future`` of every split; empty when none are used.
        load_notes: what loading changed in the user's data (gaps filled,
            rows dropped), shown before training.
    """

    name: str
    task: str
    frame: pd.DataFrame
    features: tuple[str, ...]
    target: str
    units: dict[str, str]
    lookback: int
    horizon: int
    splits: dict[str, Split]
    scaler: Scaler | None = None
    seasons: dict[str, int] = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    classes: tuple[str, ...] = ()
    tokenizer: Tokenizer | None = None
    target_tokenizer: Tokenizer | None = None
    known: tuple[str, ...] = ()
    load_notes: tuple[str, ...] = ()

    @property
    def notes(self) -> tuple[str, ...]:
        """What loading had to adapt, for the user (a vocabulary capped at what the text holds, gaps filled)."""
        note = self.tokenizer.note if self.tokenizer is not None else None
        return ((note,) if note else ()) + self.load_notes

    @property
    def target_index(self) -> int:
        return self.features.index(self.target)

    @property
    def input_shape(self) -> tuple[int, ...]:
        """One example's inputs after the batch axis: ``(T, F)`` for numeric windows."""
        return tuple(self.splits["train"].x.shape[1:])

    @property
    def target_series(self) -> np.ndarray:
        return self.frame[self.target].to_numpy(dtype="float64")

    def summary(self, target_per_sequence: bool = False) -> pd.DataFrame:
        """Summary statistics per numeric column, with units (empty when the frame holds none: text pairs).

        A class target is left out (class ids have no mean: ``class_counts`` counts them); a target
        of one value per independent sequence, repeated on its rows (``target_per_sequence``, the
        task's ``Task.target_per_sequence``), is described once per sequence.
        """
        numbers = self.frame.select_dtypes("number")
        if self.classes:
            numbers = numbers.drop(columns=[self.target], errors="ignore")
        if numbers.empty:
            return pd.DataFrame()
        stats = numbers.describe().T
        if self.target in stats.index and target_per_sequence and isinstance(self.frame.index, pd.MultiIndex):
            stats.loc[self.target] = self.frame[self.target].groupby(level="sample").first().describe()
        stats.insert(0, "unit", [self.units.get(c, "") for c in stats.index])
        return stats

    def class_counts(self) -> pd.DataFrame:
        """Examples of each class (rows) in each split (columns): sequences for classify, real steps for label."""
        counts = {}
        for name, split in self.splits.items():
            y = np.asarray(split.y)
            real = split.mask if split.mask is not None and y.ndim == 2 else np.ones(y.shape, bool)
            counts[name] = np.bincount(y[real].astype(int), minlength=len(self.classes))
        return pd.DataFrame(counts, index=pd.Index(self.classes, name="class"))
