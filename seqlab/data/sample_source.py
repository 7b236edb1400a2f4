"""Register a set of independent sequences (samples) as a dataset.

For the tasks whose examples are separate sequences (regress, classify,
label), not windows cut from one series. A generator returns every sample;
the first samples train, the next validate, the last test (the generator
decides the order: a synthetic one draws them independently, a real one
shuffles with its seed).
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
    class ids (classify) or ``(N, T)`` class ids (label).
    """

    x: np.ndarray
    y: np.ndarray
    features: tuple[str, ...]
    target: str
    classes: tuple[str, ...] = ()


def long_frame(samples: Samples) -> pd.DataFrame:
    """One row per ``(sample, t)``: the features, then the target."""
    n, steps, _ = samples.x.shape
    index = pd.MultiIndex.from_product([range(n), range(steps)], names=["sample", "t"])
    frame = pd.DataFrame(samples.x.reshape(n * steps, -1), index=index, columns=list(samples.features))
    # A per-sequence target (N values) repeats on the sequence's rows; a per-step one fills them.
    y = samples.y.reshape(n, -1)
    frame[samples.target] = np.repeat(y[:, 0], steps) if y.shape[1] != steps else y.reshape(-1)
    return frame


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
    """Cut ``samples`` into train/val/test by order; fit the scaler on train (or none)."""
    x, y = samples.x.astype("float32"), samples.y
    n, steps, features = x.shape
    val_start, test_start = split_points(n, val_fraction, test_fraction)
    if min(val_start, test_start - val_start, n - test_start) < 1:
        raise ValueError(f"{n} samples leave a split empty; raise the number of samples.")
    ids = np.arange(n)
    bounds = {"train": (0, val_start), "val": (val_start, test_start), "test": (test_start, n)}
    splits = {k: Split(x[a:b], y[a:b], ids[a:b]) for k, (a, b) in bounds.items()}
    scaler = Scaler.fit(x[:val_start].reshape(-1, features)) if scale else Scaler.identity(features)
    return SequenceData(
        name=name,
        task=task,
        frame=long_frame(samples),
        features=samples.features,
        target=samples.target,
        units=units,
        lookback=steps,
        horizon=steps if task == "label" else int(np.prod(y.shape[1:], dtype=int)),
        splits=splits,
        scaler=scaler,
        options=options,
        classes=samples.classes,
    )


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
        )
    )
