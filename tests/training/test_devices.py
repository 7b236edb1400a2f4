import os

import tensorflow as tf

from seqlab.training import devices


def test_cpu_only_machine(monkeypatch):
    monkeypatch.setattr(devices, "gpus", lambda: ())
    assert devices.device_name() == f"CPU ({os.cpu_count()} cores)"
    assert not isinstance(devices.distribution_strategy(), tf.distribute.MirroredStrategy)


def test_gpus_are_named_and_several_are_mirrored(monkeypatch):
    monkeypatch.setattr(devices, "gpu_names", lambda: ["NVIDIA H100", "NVIDIA H100"])
    assert devices.device_name() == "2× GPU: NVIDIA H100"
    monkeypatch.setattr(devices, "gpus", lambda: ("gpu:0", "gpu:1"))
    # With no real GPU, MirroredStrategy falls back to the CPU: the choice is what is tested.
    assert isinstance(devices.distribution_strategy(), tf.distribute.MirroredStrategy)
    monkeypatch.setattr(devices, "gpus", lambda: ("gpu:0",))
    assert not isinstance(devices.distribution_strategy(), tf.distribute.MirroredStrategy)
