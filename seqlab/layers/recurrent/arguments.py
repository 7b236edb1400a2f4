"""Argument checks shared by the recurrent family: errors name the argument and the value received."""

import numbers

import keras

# Options a recurrent layer hands to its cell unchanged (Keras's names).
WEIGHT_OPTIONS = tuple(
    f"{weight}_{kind}"
    for weight in ("kernel", "recurrent", "bias")
    for kind in ("initializer", "regularizer", "constraint")
)


def check_units(units):
    """Returns `units` if it is a positive integer, else raises ValueError."""
    if isinstance(units, bool) or not isinstance(units, numbers.Integral) or units <= 0:
        raise ValueError(f"Argument `units` must be a positive integer. Received: units={units!r}")
    return int(units)


def check_rate(name, value):
    """Returns a dropout rate in [0, 1), else raises ValueError naming the argument."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= value < 1.0:
        raise ValueError(f"Argument `{name}` must be a float in [0, 1). Received: {name}={value!r}")
    return float(value)


def check_use_cudnn(use_cudnn):
    """Returns `use_cudnn` if it is "auto", True or False, else raises ValueError."""
    if use_cudnn not in ("auto", True, False):
        raise ValueError(f"Argument `use_cudnn` must be 'auto', True or False. Received: use_cudnn={use_cudnn!r}")
    return use_cudnn


def get_activation(name, value):
    """Resolves an activation like Keras, with an error that names the argument."""
    if value is None:
        raise ValueError(f"Argument `{name}` must be an activation, not None. Use 'linear' for none.")
    try:
        return keras.activations.get(value)
    except (ValueError, TypeError) as error:
        raise ValueError(
            f"Argument `{name}` is not a known activation. Received: {name}={value!r}"
        ) from error


def check_step_rank(cell, input_shape):
    """A cell sees one time step: inputs of shape (batch, features)."""
    if len(input_shape) != 2:
        raise ValueError(
            f"{type(cell).__name__} expects one time step of shape (batch, features); "
            f"received input_shape={tuple(input_shape)}. Wrap the cell in a layer "
            "(e.g. keras.layers.RNN) for (batch, time, features) sequences."
        )


def cell_arguments(cell):
    """The cell's constructor arguments, to merge into its layer's config."""
    config = cell.get_config()
    for key in ("name", "trainable", "dtype"):
        config.pop(key, None)
    return config
