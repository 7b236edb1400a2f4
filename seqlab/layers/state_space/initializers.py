r"""Initializers of the state-space family: $\Delta$ log-uniform, and $A$'s diagonal the same in every channel."""

import math

import keras
from keras import ops


def log_uniform(low, high):
    r"""Draws $\log \Delta$ uniform in $[\log \text{low}, \log \text{high}]$ (S4D, Mamba)."""

    def initializer(shape, dtype=None):
        return keras.random.uniform(shape, math.log(low), math.log(high), dtype=dtype)

    return initializer


def inverse_softplus_of(log_initializer):
    r"""Gives $b$ with $\mathrm{softplus}(b) = \Delta$ for $\Delta$ drawn by `log_initializer` (in log)."""

    def initializer(shape, dtype=None):
        dt = ops.exp(log_initializer(shape, dtype=dtype))
        return dt + ops.log(-ops.expm1(-dt))  # log(e^Δ - 1)

    return initializer


def over_modes(values):
    """Gives every channel the same row `values(n)` over the modes n = 0..N-1 (the last axis)."""

    def initializer(shape, dtype=None):
        n = ops.arange(shape[-1], dtype=dtype)
        return ops.broadcast_to(values(n), shape)

    return initializer
