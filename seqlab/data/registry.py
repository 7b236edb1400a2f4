"""The dataset registry: named datasets, each with its task, source and licence.

A dataset registers a ``frame`` function (the raw table, for previews) and a
``load`` function (frame -> windowed ``SequenceData``). ``load_dataset`` checks the
options against the dataset's defaults, so a typo names the valid keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from seqlab.checks import Range, bounds_table, resolve_against_defaults
from seqlab.data.sequence_data import TASKS, SequenceData
from seqlab.registry import Registry


@dataclass(frozen=True)
class DatasetInfo:
    """A registered dataset.

    Attributes:
        defaults: every option with its default value.
        choices: option -> its valid values, for options that name one of a few.
        ranges: bounds of this dataset's own numeric options; shared names
            (lookback, horizon, stride, fractions, seed, samples) take
            ``seqlab.checks.RANGES``.
        kinds: what its samples are beyond the task's shape, for architectures
            that need it: ``"image"`` when each sample is a 2-D image read row by
            row (``Architecture.needs``).
    """

    name: str
    title: str
    task: str
    description: str
    source: str
    licence: str
    frame: Callable[..., pd.DataFrame]
    load: Callable[..., SequenceData]
    defaults: dict = field(default_factory=dict)
    units: dict = field(default_factory=dict)
    ranges: dict[str, Range] = field(default_factory=dict)
    choices: dict = field(default_factory=dict)
    kinds: frozenset[str] = frozenset()

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "title": self.title,
            "task": self.task,
            "description": self.description,
            "source": self.source,
            "licence": self.licence,
            "options": dict(self.defaults),
            "choices": {k: list(v) for k, v in self.choices.items()},
            "ranges": bounds_table(self.defaults, self.ranges),
            "kinds": sorted(self.kinds),
        }


def check_task(task: str) -> None:
    """A task kind named by a dataset or an architecture must be one of ``TASKS``."""
    if task not in TASKS:
        raise ValueError(f"Unknown task {task!r}; valid tasks: {', '.join(TASKS)}.")


DATASETS: Registry[DatasetInfo] = Registry("dataset", check=lambda info: check_task(info.task))


def register(info: DatasetInfo) -> DatasetInfo:
    return DATASETS.register(info.name, info)


def list_datasets(task: str | None = None) -> list[DatasetInfo]:
    if task is not None:
        check_task(task)
    return DATASETS.list(lambda d: task is None or d.task == task)


def get_dataset(name: str) -> DatasetInfo:
    return DATASETS.get(name)


def resolve_options(name: str, options: dict | None) -> dict:
    """The dataset's defaults overridden by ``options``; unknown keys, wrong types, out-of-range numbers and
    values outside an option's ``choices`` refused."""
    info = get_dataset(name)
    return resolve_against_defaults(f"dataset {name!r}", info.defaults, options, info.ranges, info.choices)


def load_dataset(name: str, **options) -> SequenceData:
    """Load dataset ``name`` with its options resolved against the defaults."""
    resolved = resolve_options(name, options)
    return get_dataset(name).load(**resolved)
