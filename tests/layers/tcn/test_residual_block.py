import keras
import numpy as np
import pytest

from seqlab.layers.tcn import TemporalBlock
from tests.layers.layer_test import assert_dropout_only_while_training, run_layer_test
from tests.layers.tcn.reference import numpy, temporal_block


def test_layer_contract(tmp_path):
    # Two weight-normalised convolutions (v, g, bias each) and the 1x1 shortcut (kernel, bias): 4 -> 3 channels.
    run_layer_test(TemporalBlock, {"filters": 3, "kernel_size": 2, "dilation": 2}, (2, 6, 4), (2, 6, 3), tmp_path,
                   expected_num_trainable_weights=8)


@pytest.mark.parametrize("features, shortcut_weights", [(3, 0), (5, 2)])
def test_output_is_the_residual_block_written_out(features, shortcut_weights):
    x = np.random.default_rng(0).normal(size=(2, 8, features)).astype("float32")
    block = TemporalBlock(filters=3, kernel_size=3, dilation=2, bias_initializer="random_normal")
    o = numpy(block(x))
    assert len(block.trainable_weights) == 6 + shortcut_weights  # identity shortcut when the widths match
    np.testing.assert_allclose(o, temporal_block(block, x), rtol=1e-5, atol=1e-5)


def test_the_block_reads_exactly_its_receptive_field():
    block = TemporalBlock(filters=4, kernel_size=3, dilation=2, bias_initializer="ones")
    assert block.receptive_field == 9  # 1 + 2 (k - 1) d
    x = np.random.default_rng(1).normal(size=(1, 12, 2)).astype("float32")
    base, t = numpy(block(x)), 11
    for s, reads in [(t - 9, False), (t - 8, True), (t + 0, True)]:
        changed = x.copy()
        changed[0, s] += 3.0
        assert (not np.allclose(numpy(block(changed))[0, t], base[0, t])) == reads, s


def test_stepping_gives_the_outputs_of_the_whole_sequence():
    x = np.random.default_rng(2).normal(size=(2, 7, 3)).astype("float32")
    block = TemporalBlock(filters=4, kernel_size=2, dilation=3, dropout=0.5, bias_initializer="random_normal")
    o = numpy(block(x))
    state = block.initial_state(2)
    for t in range(7):
        o_t, state = block.step(x[:, t], state)
        np.testing.assert_allclose(numpy(o_t), o[:, t], rtol=1e-5, atol=1e-5)


def test_dropout_only_while_training():
    assert_dropout_only_while_training(TemporalBlock(filters=4, kernel_size=2, dropout=0.5, bias_initializer="ones"))


def test_the_mask_passes_on():
    ids = keras.Input((5,), dtype="int32")
    out = TemporalBlock(filters=2, kernel_size=2)(keras.layers.Embedding(6, 3, mask_zero=True)(ids))
    assert getattr(out, "_keras_mask", None) is not None


@pytest.mark.parametrize("kwargs, message", [
    ({"filters": 0, "kernel_size": 2}, "filters"), ({"filters": 2, "kernel_size": -1}, "kernel_size"),
    ({"filters": 2, "kernel_size": 2, "dilation": True}, "dilation"),
    ({"filters": 2, "kernel_size": 2, "dropout": 1.0}, "dropout"),
])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TemporalBlock(**kwargs)
