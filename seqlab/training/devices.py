"""Devices: find GPUs, let their memory grow, pick a distribution strategy (under each Keras backend)."""

from __future__ import annotations

import contextlib
import functools
import os

import keras


@functools.lru_cache(maxsize=1)
def gpus() -> tuple:
    if keras.backend.backend() != "tensorflow":
        import jax

        return tuple(d for d in jax.devices() if d.platform == "gpu")
    import tensorflow as tf

    found = tuple(tf.config.list_physical_devices("GPU"))
    for gpu in found:
        try:
            # Grab memory as needed instead of all of it at start-up.
            tf.config.experimental.set_memory_growth(gpu, True)
        except RuntimeError:  # the runtime was initialised before: growth is already fixed
            pass
    return found


def gpu_names() -> list[str]:
    if keras.backend.backend() != "tensorflow":
        return [d.device_kind for d in gpus()]
    import tensorflow as tf

    return [tf.config.experimental.get_device_details(g).get("device_name", g.name) for g in gpus()]


def device_name(devices: int = 0) -> str:
    """A readable name of where training runs, e.g. ``1× GPU: NVIDIA H100``, ``CPU (2 cores)``, or with
    ``devices`` (``distribution_strategy``) ``2× CPU, data parallel (2 cores)``."""
    names = gpu_names()[:devices] if devices else gpu_names()
    if not names:
        return f"{devices}× CPU, data parallel ({os.cpu_count()} cores)" if devices else \
            f"CPU ({os.cpu_count()} cores)"
    return f"{len(names)}× GPU: {', '.join(sorted(set(names)))}" + (", data parallel" if devices else "")


class _OneDevice:
    """The scope of a backend that trains on one device (JAX here): building a model inside it changes nothing."""

    def scope(self):
        return contextlib.nullcontext()


def visible_devices() -> list:
    """The devices data parallelism can split a batch over: the GPUs when there are any, else the CPUs
    (several only where made so: ``XLA_FLAGS=--xla_force_host_platform_device_count=N`` under JAX,
    logical CPUs under TensorFlow)."""
    if keras.backend.backend() != "tensorflow":
        import jax

        return list(jax.devices())  # JAX's default platform: the GPUs where there are any
    import tensorflow as tf

    gpus()  # memory growth is set before the runtime starts
    return tf.config.list_logical_devices("GPU") or tf.config.list_logical_devices("CPU")


def distribution_strategy(devices: int = 0):
    """Where a model is built and trained: ``devices`` 0 mirrors it over all GPUs when there is more than one
    (TensorFlow; one device under JAX), N splits every batch over the first N devices (``visible_devices``):
    ``tf.distribute.MirroredStrategy`` under TensorFlow, ``keras.distribution.DataParallel`` under JAX."""
    if devices:
        found = visible_devices()
        if len(found) < devices:
            raise ValueError(
                f"devices={devices} asks for more devices than the {len(found)} visible here "
                f"({', '.join(sorted({getattr(d, 'device_type', None) or d.platform for d in found}))}); "
                f"give at most {len(found)}, or 0 to use what there is."
            )
        if keras.backend.backend() != "tensorflow":
            return keras.distribution.DataParallel(devices=found[:devices])
        import tensorflow as tf

        return tf.distribute.MirroredStrategy([d.name for d in found[:devices]])
    if keras.backend.backend() != "tensorflow":
        return _OneDevice()
    import tensorflow as tf

    if len(gpus()) > 1:
        return tf.distribute.MirroredStrategy()
    return tf.distribute.get_strategy()


class EvaluateUnsplit(keras.callbacks.Callback):
    """Validation outside JAX's ``DataParallel``: its last batch, of any size, need not split evenly over the
    devices (Keras's JAX trainer refuses one that does not); the weights, replicated, serve it whole."""

    def __init__(self, distribution):
        super().__init__()
        self.distribution = distribution

    def on_test_begin(self, logs=None):
        keras.distribution.set_distribution(None)

    def on_test_end(self, logs=None):
        keras.distribution.set_distribution(self.distribution)


def split_callbacks(strategy) -> list:
    """The callbacks training under ``strategy`` needs: ``EvaluateUnsplit`` under JAX's ``DataParallel``."""
    return [EvaluateUnsplit(strategy)] if isinstance(strategy, keras.distribution.DataParallel) else []


def evaluation_batch_size(rows: int, devices: int, largest: int) -> int:
    """The validation batch of ``rows`` windows over ``devices``: ``largest``, or for several devices the
    largest multiple of them up to ``largest`` and ``rows``: Keras's TensorFlow trainer adds up the first
    validation batch's replicas to learn its shapes, which fails unless that batch splits evenly."""
    if devices < 2:
        return largest
    size = min(largest, rows)
    return max(devices, size - size % devices)
