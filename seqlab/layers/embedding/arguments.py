"""Argument checks shared by the embedding family and the language models built on it."""

import numbers


def check_size(name, value):
    """Returns `value` if it is a positive integer (a vocabulary size, a rank r), else raises ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"Argument `{name}` must be a positive integer. Received: {name}={value!r}")
    return int(value)
