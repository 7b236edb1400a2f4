"""Argument checks shared by the state-space family: errors name the argument and the value received."""

import numbers


def check_positive_int(name, value):
    """Returns `value` as an int if it is a positive integer, else raises ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"Argument `{name}` must be a positive integer. Received: {name}={value!r}")
    return int(value)


def check_choice(name, value, choices):
    """Returns `value` if it is one of `choices`, else raises ValueError listing them."""
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(choice) for choice in choices)
        raise ValueError(f"Argument `{name}` must be one of {listed}. Received: {name}={value!r}")
    return value


def check_dt_range(dt_min, dt_max):
    """Returns `(dt_min, dt_max)` as floats if 0 < dt_min <= dt_max, else raises ValueError."""
    for name, value in (("dt_min", dt_min), ("dt_max", dt_max)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 < value < float("inf"):
            raise ValueError(f"Argument `{name}` must be a positive number. Received: {name}={value!r}")
    if dt_min > dt_max:
        raise ValueError(
            f"Argument `dt_min` must not exceed `dt_max`. Received: dt_min={dt_min!r}, dt_max={dt_max!r}"
        )
    return float(dt_min), float(dt_max)


def check_sequence_shape(layer, input_shape):
    """A state-space layer reads `(batch, steps, channels)` with a known number of channels."""
    if len(input_shape) != 3 or input_shape[-1] is None:
        raise ValueError(
            f"{type(layer).__name__} expects inputs of shape (batch, steps, channels) with a known number of "
            f"channels; received input_shape={tuple(input_shape)}."
        )
    return int(input_shape[-1])
