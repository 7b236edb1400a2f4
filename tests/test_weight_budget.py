"""weight_budget: blocks inside blocks, and other threads."""

import threading

import keras
import pytest

from seqlab.weight_budget import weight_budget


def dense(units: int) -> keras.layers.Dense:
    layer = keras.layers.Dense(units)
    layer.build((None, 10))  # 10 x units + units weights
    return layer


def test_an_inner_block_counts_its_own_model_and_the_outer_count_goes_on(monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_PARAMETERS", "1000")
    with weight_budget():
        dense(50)  # 550
        with weight_budget():  # a loaded run's model: a model of its own, within its own limit
            dense(80)  # 880
        dense(30)  # 550 + 330 = 880: the inner block's weights are not the outer model's
        with pytest.raises(ValueError, match="more than 1,000 weights"):
            dense(20)  # 880 + 220


def test_another_thread_is_not_counted(monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_PARAMETERS", "1000")
    with weight_budget():
        dense(50)
        worker = threading.Thread(target=dense, args=(80,))  # a training job's own build, outside this block
        worker.start()
        worker.join()
        dense(40)  # 550 + 440
