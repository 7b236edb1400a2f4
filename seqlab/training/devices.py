"""Devices: find GPUs, let their memory grow, pick a distribution strategy."""

from __future__ import annotations

import functools
import os

import tensorflow as tf


@functools.lru_cache(maxsize=1)
def gpus() -> tuple:
    found = tuple(tf.config.list_physical_devices("GPU"))
    for gpu in found:
        try:
            # Grab memory as needed instead of all of it at start-up.
            tf.config.experimental.set_memory_growth(gpu, True)
        except RuntimeError:  # the runtime was initialised before: growth is already fixed
            pass
    return found


def gpu_names() -> list[str]:
    return [tf.config.experimental.get_device_details(g).get("device_name", g.name) for g in gpus()]


def device_name() -> str:
    """A readable name of where training runs, e.g. ``1× GPU: NVIDIA H100`` or ``CPU (2 cores)``."""
    names = gpu_names()
    if not names:
        return f"CPU ({os.cpu_count()} cores)"
    return f"{len(names)}× GPU: {', '.join(sorted(set(names)))}"


def distribution_strategy() -> tf.distribute.Strategy:
    """Mirror the model over all GPUs when there is more than one, else the default."""
    if len(gpus()) > 1:
        return tf.distribute.MirroredStrategy()
    return tf.distribute.get_strategy()
