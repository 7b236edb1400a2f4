"""Argument checks shared by datasets, architectures and the spec, and the ranges of numeric options.

Each names the option and the value received, so a typo on the command line
or in the app reads as one clear sentence, never as a TypeError deep inside.

Every numeric option has a ``Range``: the shared ``RANGES`` below for names
that mean the same everywhere, or its dataset's or architecture's own
``ranges``. The library enforces them (``resolve_against_defaults``,
``ExperimentSpec.resolved``) and the dashboard's inputs take their bounds
from the same objects.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from seqlab.limits import current_limits, limit_hint


def shown(value) -> str:
    """``repr(value)`` cut to a readable length, for messages about any value a user gave."""
    try:
        text = repr(value)
    except ValueError:  # an int too long for str()
        text = f"an integer of about {value.bit_length() * 0.30103:.0f} digits"
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True)
class Range:
    """Inclusive bounds of a numeric option.

    ``limit`` names a field of ``seqlab.limits.Limits`` that lowers ``high``
    on a server that sets it (e.g. ``epochs`` and ``max_epochs``). Integer
    bounds for integer options, float bounds for float options.
    """

    low: int | float
    high: int | float
    limit: str | None = None

    def bounds(self) -> tuple[int | float, int | float]:
        """``(low, high)`` in force now."""
        if self.limit is None:
            return self.low, self.high
        return self.low, type(self.high)(min(self.high, getattr(current_limits(), self.limit)))

    def check(self, name: str, value, owner: str = ""):
        """``value`` if it is a finite number within the bounds, else a ValueError naming ``name``."""
        where = f" for {owner}" if owner else ""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name} must be a number{where}, got {shown(value)}.")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number{where}, got {shown(value)}.")
        low, high = self.bounds()
        if value > high and high < self.high:
            raise ValueError(
                f"{name} must be at most {high:,}{where} ({limit_hint(self.limit)}), got {shown(value)}."
            )
        if not low <= value <= high:
            raise ValueError(f"{name} must lie in [{_number(low)}, {_number(high)}]{where}, got {shown(value)}.")
        return value


def _number(x: int | float) -> str:
    return str(x) if isinstance(x, int) else f"{x:g}"


# Options that mean the same wherever they appear. A dataset's or an
# architecture's own ``ranges`` override these for its options.
RANGES: dict[str, Range] = {
    # training (ExperimentSpec fields)
    "epochs": Range(1, 100_000, limit="max_epochs"),
    "batch_size": Range(1, 8192),
    "learning_rate": Range(1e-8, 100.0),
    "clip_norm": Range(1e-6, 1e6),
    "clip_value": Range(1e-6, 1e6),
    "early_stopping": Range(0, 10_000),
    "seed": Range(0, 2**32 - 1),  # NumPy's legacy seeding, which Keras uses, takes 32 bits
    "weight_decay": Range(0.0, 10.0),
    "warmup_steps": Range(0, 1_000_000),
    "steps": Range(0, 10_000_000, limit="max_steps"),  # 0: whole passes over the training windows
    "steps_per_execution": Range(1, 10_000),
    "devices": Range(0, 1024),  # 0: all GPUs where there are several, else one device
    "tbptt": Range(1, 100_000, limit="max_sequence_length"),  # k1 and k2
    # forecast windows and splits
    "lookback": Range(1, 100_000, limit="max_sequence_length"),
    "horizon": Range(1, 100_000),
    "stride": Range(1, 100_000),
    "val_fraction": Range(0.01, 0.49),
    "test_fraction": Range(0.01, 0.49),
    "samples": Range(10, 1_000_000),
    # layers
    "units": Range(1, 1024),
    "layers": Range(1, 8),
    "dropout": Range(0.0, 0.9),
}


def option_range(name: str, ranges: dict[str, Range] | None = None) -> Range | None:
    """The range of option ``name``: its owner's own (``ranges``), else the shared one."""
    return (ranges or {}).get(name) or RANGES.get(name)


def check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return value


def check_positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    return int(value)


def check_dropout(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value < 1.0:
        raise ValueError(f"dropout must lie in [0, 1), got {value!r}.")
    return float(value)


def check_bool(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}.")
    return value


def check_non_negative(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ValueError(f"{name} must be a number >= 0, got {value!r}.")
    return float(value)


def bounds_table(defaults: dict, ranges: dict[str, Range] | None = None) -> dict[str, list]:
    """``{option: [low, high]}`` for the numeric options of ``defaults``, with the limits in force."""
    table = {}
    for name in defaults:
        found = option_range(name, ranges)
        if found is not None:
            table[name] = list(found.bounds())
    return table


def _type_error(key: str, value, default) -> str | None:
    """What is wrong with ``value`` for an option whose default is ``default`` (``None``: fine)."""
    if default is None:
        return None  # optional: the option's own check decides
    if isinstance(default, (list, tuple)):
        return None if isinstance(value, (list, tuple)) else "a list"
    if isinstance(default, bool):
        return None if isinstance(value, bool) else "true or false"
    if isinstance(default, int):
        return None if isinstance(value, int) and not isinstance(value, bool) else "an integer"
    if isinstance(default, float):
        return None if isinstance(value, (int, float)) and not isinstance(value, bool) else "a number"
    if isinstance(default, str):
        return None if isinstance(value, str) else "text"
    return None


def resolve_against_defaults(
    owner: str,
    defaults: dict,
    options: dict | None,
    ranges: dict[str, Range] | None = None,
    choices: dict[str, tuple] | None = None,
) -> dict:
    """``defaults`` overridden by ``options``; unknown keys, wrong types, numbers out of range and
    values outside an option's ``choices`` refused.

    ``owner`` names what the options belong to, e.g. ``dataset 'energy'``;
    ``ranges`` are the owner's own ranges (see ``option_range``); ``choices``
    the valid values of options that take one of a few.
    """
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ValueError(f"The options of {owner} must be a mapping of names to values, got {shown(options)}.")
    unknown = sorted(str(key) for key in options if key not in defaults)
    if unknown:
        raise ValueError(
            f"Unknown option(s) {unknown} for {owner}; valid options: {', '.join(sorted(defaults))}."
        )
    for key, value in options.items():
        expected = _type_error(key, value, defaults[key])
        if expected:
            raise ValueError(f"{key} must be {expected} for {owner}, got {shown(value)}.")
    resolved = {**defaults, **options}
    # Defaults too: a server's limit (e.g. max_sequence_length) may lie below one.
    for key, value in resolved.items():
        bounds = option_range(key, ranges)
        if bounds is not None and value is not None and not isinstance(value, bool):
            bounds.check(key, value, owner)
        if isinstance(defaults[key], float) and isinstance(value, int) and not isinstance(value, bool):
            resolved[key] = float(value)  # 1 for a rate: the same option, spelled as its default
    for key, valid in (choices or {}).items():
        if resolved[key] not in valid:
            listed = ", ".join(map(str, valid))
            raise ValueError(f"{key} must be one of {listed} for {owner}, got {shown(resolved[key])}.")
    return resolved
