"""What the numeric tasks share: float windows in, scaled inside the model, the scaler saved with the run.

``InputSpec`` describes one model input for any task; ``numeric_inputs``,
``scale_inputs``, ``save_scaler`` and ``load_scaler`` are the numeric tasks'
inputs, preprocessor and assets (``seqlab.tasks.task.Task``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from seqlab.bounded_json import RECORD_BYTES, read_json
from seqlab.data.scaler import Scaler
from seqlab.data.sequence_data import SequenceData

SCALER_FILE = "scaler.json"


@dataclass(frozen=True)
class InputSpec:
    """One input of a task's model.

    Attributes:
        name: the ``keras.Input``'s name (the SavedModel's argument).
        shape: after the batch axis; ``None`` where the length varies.
        dtype: ``float32`` for numbers, ``int32`` for token ids, ``string`` for raw text.
    """

    name: str
    shape: tuple[int | None, ...]
    dtype: str = "float32"

    def as_dict(self) -> dict:
        return {"name": self.name, "shape": list(self.shape), "dtype": self.dtype}


def numeric_inputs(data: SequenceData) -> tuple[InputSpec, ...]:
    """One window ``(T, F)`` of floats in the data's own units."""
    return (InputSpec("window", (data.lookback, len(data.features)), "float32"),)


def _scaler_of(data: SequenceData) -> Scaler:
    if data.scaler is None:
        raise ValueError(
            f"Dataset {data.name!r} has no scaler, but a {data.task} task scales numeric inputs: "
            "its loader must fit one on the training rows (seqlab.data.Scaler.fit)."
        )
    return data.scaler


def scale_inputs(data: SequenceData):
    """``Normalization`` with the training statistics: the SavedModel takes raw units.

    Sequences padded to a common length (the data's splits carry a ``mask``)
    are masked first, by their all-zero steps (``keras.layers.Masking``): the
    mask passes through the scaling, so recurrent bodies skip the padding and
    masked pooling leaves it out, as for padded text.
    """
    import keras

    scaler = _scaler_of(data)
    scale = keras.layers.Normalization(axis=-1, mean=scaler.mean, variance=scaler.std**2, name="scale_inputs")
    if data.splits["train"].mask is None:
        return scale
    padding = keras.layers.Masking(mask_value=0.0, name="padding_mask")  # the loader pads with zeros
    return lambda window: scale(padding(window))


def save_scaler(folder: Path, data: SequenceData) -> list[str]:
    """Write the scaler's statistics per feature as ``scaler.json``; the files written, relative to ``folder``."""
    scaler = _scaler_of(data)
    stats = {"features": list(data.features), "mean": scaler.mean.tolist(), "std": scaler.std.tolist()}
    (Path(folder) / SCALER_FILE).write_text(json.dumps(stats, indent=2))
    return [SCALER_FILE]


def load_scaler(folder: Path) -> dict:
    """``{"scaler": Scaler}`` from ``scaler.json``; ``{}`` for a run saved before runs kept it."""
    path = Path(folder) / SCALER_FILE
    if not os.path.lexists(path):
        return {}
    try:
        stats = read_json(path, SCALER_FILE, RECORD_BYTES)
        scaler = Scaler(np.asarray(stats["mean"], dtype="float64"), np.asarray(stats["std"], dtype="float64"))
    except (ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{path} is damaged ({type(err).__name__}): delete the run or train it again.") from None
    if scaler.mean.shape != scaler.std.shape or scaler.mean.ndim != 1:
        raise ValueError(f"{path}: mean and std must be two lists of equal length; delete the run or train it again.")
    return {"scaler": scaler}
