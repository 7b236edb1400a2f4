"""Padding in the state-space family: padded steps read zeros, and a scan keeps its state across them."""

from keras import ops


def masked_inputs(inputs, mask):
    """`inputs` `(batch, steps, channels)` with the padded steps (mask False) zeroed; unchanged without a mask."""
    if mask is None:
        return inputs
    return inputs * ops.expand_dims(ops.cast(mask, inputs.dtype), -1)


def real_steps(inputs, mask):
    """`(batch, steps)`: 1 at a real step, 0 at a padded one (all ones without a mask), in the inputs' dtype."""
    if mask is None:
        return ops.ones(ops.shape(inputs)[:2], dtype=inputs.dtype)
    return ops.cast(mask, inputs.dtype)
