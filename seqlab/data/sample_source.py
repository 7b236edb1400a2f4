"""Register a set of independent sequences (samples) as a dataset.

For the tasks whose examples are separate sequences (regress, classify,
label), not windows cut from one series. A generator returns every sample;
the first samples train, the next validate, the last test (the generator
decides the order: a synthetic one draws them independently, a real one
shuffles with its seed). Sequences of different lengths are padded at the end
with zeros and carry a mask (False on the padding), which every split keeps
and the scaler's statistics leave out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from seqlab.data.registry import DatasetInfo, register
from seqlab.data.scaler import Scaler
from seqlab.data.sequence_data import SequenceData, Split
from seqlab.data.windowing import split_points

SAMPLE_OPTIONS = ("val_fraction", "test_fraction")


@dataclass(frozen=True)
class Samples:
    """What a generator returns.

    ``x`` is ``(N, T, F)``; ``y`` is ``(N, K)`` real values (regress), ``(N,)``
    class ids (classify) or ``(N, T)`` class ids (label). ``mask``: ``(N, T)``
    booleans, False on the zeros that pad a shorter sequence at its end
    (``None``: every sequence is T steps long).
    """

    x: np.ndarray
    y: np.ndarray
    features: tuple[str, ...]
    target: str
    classes: tuple[str, ...] = ()
    mask: np.ndarray | None = None


def long_frame(samples: Samples) -> pd.DataFrame:
    """One row per real ``(sample, t)`` (padding left out): the features, then the target."""
    n, steps, _ = samples.x.shape
    index = pd.MultiIndex.from_product([range(n), range(steps)], names=["sample", "t"])
    frame = pd.DataFrame(samples.x.reshape(n * steps, -1), index=index, columns=list(samples.features))
    # A per-sequence target (N values) repeats on the sequence's rows; a per-step one fills them.
    y = samples.y.reshape(n, -1)
    frame[samples.target] = np.repeat(y[:, 0], steps) if y.shape[1] != steps else y.reshape(-1)
    return frame if samples.mask is None else frame[samples.mask.reshape(-1)]


def check_padding(x: np.ndarray, mask: np.ndarray | None) -> None:
    """Padding is all zeros and no real step is: a model finds the padding by its zeros (``keras.layers.Masking``)."""
    if mask is None:
        return
    if mask.shape != x.shape[:2] or mask.dtype != bool:
        raise ValueError(f"The mask must be (N, T) = {x.shape[:2]} booleans, got {mask.dtype} {mask.shape}.")
    if np.any(x[~mask]):
        raise ValueError("The padded steps of the sequences must be zeros: pad every feature with 0.")
    if not np.any(x[mask], axis=-1).all():
        raise ValueError(
            "A real step of a sequence has every feature exactly 0, which a model reads as padding: "
            "shift the data (or drop that step) so no real step is all zeros."
        )


def sample_data(
    name: str,
    task: str,
    samples: Samples,
    units: dict[str, str],
    scale: bool,
    bounds: dict[str, tuple[int, int]],
    options: dict,
) -> SequenceData:
    """Cut ``samples`` into the splits ``bounds`` (name -> ``(first, end)``, train first); fit the scaler on train.

    The scaler (or none, ``scale`` False) sees the real steps of the training samples only.
    """
    x, y, mask = samples.x.astype("float32"), samples.y, samples.mask
    n, steps, features = x.shape
    check_padding(x, mask)
    ids = np.arange(n)
    splits = {
        k: Split(x[a:b], y[a:b], ids[a:b], mask=None if mask is None else mask[a:b]) for k, (a, b) in bounds.items()
    }
    train = splits["train"]
    real = train.x.reshape(-1, features) if mask is None else train.x[train.mask]  # (rows, F)
    scaler = Scaler.fit(real) if scale else Scaler.identity(features)
    return SequenceData(
        name=name,
        task=task,
        frame=long_frame(samples),
        features=samples.features,
        target=samples.target,
        units=units,
        lookback=steps,
        horizon=int(np.prod(y.shape[1:], dtype=int)),  # outputs per sequence: 1 class, K values, T labels
        splits=splits,
        scaler=scaler,
        options=options,
        classes=samples.classes,
    )


def split_samples(
    name: str,
    task: str,
    samples: Samples,
    units: dict[str, str],
    scale: bool,
    val_fraction: float,
    test_fraction: float,
    options: dict,
) -> SequenceData:
    """Cut ``samples`` into train/val/test by order (``sample_data``)."""
    n = len(samples.x)
    val_start, test_start = split_points(n, val_fraction, test_fraction)
    if min(val_start, test_start - val_start, n - test_start) < 1:
        raise ValueError(f"{n} samples leave a split empty; raise the number of samples.")
    bounds = {"train": (0, val_start), "val": (val_start, test_start), "test": (test_start, n)}
    return sample_data(name, task, samples, units, scale, bounds, options)


def register_samples(
    name: str,
    title: str,
    task: str,
    description: str,
    source: str,
    licence: str,
    generate: Callable[..., Samples],
    defaults: dict,
    scale: bool,
    units: dict[str, str] | None = None,
    ranges: dict | None = None,
    kinds: frozenset[str] = frozenset(),
) -> DatasetInfo:
    """``defaults`` holds the split fractions plus every keyword of ``generate``;
    ``ranges`` the bounds of those keywords (``seqlab.checks.Range``).

    ``scale``: fit a per-feature scaler on the training samples (inside the
    model), or leave inputs as they are (already in a unit range).
    """
    generator_keys = [k for k in defaults if k not in SAMPLE_OPTIONS]
    units = units or {}

    def load(**options) -> SequenceData:
        samples = generate(**{k: options[k] for k in generator_keys})
        return split_samples(
            name, task, samples, units, scale,
            options["val_fraction"], options["test_fraction"], options,
        )

    return register(
        DatasetInfo(
            name=name,
            title=title,
            task=task,
            description=description,
            source=source,
            licence=licence,
            frame=lambda: long_frame(generate(**{k: defaults[k] for k in generator_keys})),
            load=load,
            defaults=defaults,
            units=units,
            ranges=ranges or {},
            kinds=kinds,
        )
    )
