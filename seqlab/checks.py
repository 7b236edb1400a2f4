"""Argument checks shared by datasets, architectures and the spec.

Each names the option and the value received, so a typo on the command line
or in the app reads as one clear sentence, never as a TypeError deep inside.
"""

from __future__ import annotations


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


def _type_error(key: str, value, default) -> str | None:
    """What is wrong with ``value`` for an option whose default is ``default`` (``None``: fine)."""
    if default is None or isinstance(default, (list, tuple)):
        return None  # optional or structured: the option's own check decides
    if isinstance(default, bool):
        return None if isinstance(value, bool) else "true or false"
    if isinstance(default, int):
        return None if isinstance(value, int) and not isinstance(value, bool) else "an integer"
    if isinstance(default, float):
        return None if isinstance(value, (int, float)) and not isinstance(value, bool) else "a number"
    if isinstance(default, str):
        return None if isinstance(value, str) else "text"
    return None


def resolve_against_defaults(owner: str, defaults: dict, options: dict | None) -> dict:
    """``defaults`` overridden by ``options``; unknown keys and values of the wrong type refused.

    ``owner`` names what the options belong to, e.g. ``dataset 'energy'``.
    """
    options = dict(options or {})
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        raise ValueError(
            f"Unknown option(s) {unknown} for {owner}; valid options: {', '.join(sorted(defaults))}."
        )
    for key, value in options.items():
        expected = _type_error(key, value, defaults[key])
        if expected:
            raise ValueError(f"{key} must be {expected} for {owner}, got {value!r}.")
    return {**defaults, **options}
