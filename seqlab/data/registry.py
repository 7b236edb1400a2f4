"""The dataset registry: named datasets, each with its task, source and licence.

A dataset registers a ``frame`` function (the raw table, for previews) and a
``load`` function (frame -> windowed ``SequenceData``). ``load_dataset`` checks the
options against the dataset's defaults, so a typo names the valid keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from seqlab.checks import resolve_against_defaults
from seqlab.data.sequence_data import TASKS, SequenceData


@dataclass(frozen=True)
class DatasetInfo:
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

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "title": self.title,
            "task": self.task,
            "description": self.description,
            "source": self.source,
            "licence": self.licence,
            "options": dict(self.defaults),
        }


_REGISTRY: dict[str, DatasetInfo] = {}


def register(info: DatasetInfo) -> DatasetInfo:
    if info.task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {info.task!r}.")
    _REGISTRY[info.name] = info
    return info


def list_datasets(task: str | None = None) -> list[DatasetInfo]:
    if task is not None and task not in TASKS:
        raise ValueError(f"Unknown task {task!r}; valid tasks: {', '.join(TASKS)}.")
    return [d for d in _REGISTRY.values() if task is None or d.task == task]


def get_dataset(name: str) -> DatasetInfo:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(
            f"Unknown dataset {name!r}; valid datasets: {', '.join(sorted(_REGISTRY))}."
        ) from None


def resolve_options(name: str, options: dict | None) -> dict:
    """The dataset's defaults overridden by ``options``, unknown keys and wrong types refused."""
    return resolve_against_defaults(f"dataset {name!r}", get_dataset(name).defaults, options)


def load_dataset(name: str, **options) -> SequenceData:
    """Load dataset ``name`` with its options resolved against the defaults."""
    resolved = resolve_options(name, options)
    return get_dataset(name).load(**resolved)
