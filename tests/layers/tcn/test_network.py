import keras
import numpy as np
import pytest

from seqlab.layers.tcn import TemporalConvNet
from tests.layers.layer_test import run_layer_test
from tests.layers.tcn.reference import numpy, temporal_block


@pytest.mark.parametrize("return_sequences, output_shape", [(True, (2, 7, 3)), (False, (2, 3))])
def test_layer_contract(tmp_path, return_sequences, output_shape):
    # Two blocks of two convolutions (v, g, bias), and the first block's 1x1 shortcut from 4 to 3 channels.
    run_layer_test(TemporalConvNet, {"filters": 3, "kernel_size": 2, "dilations": [1, 2],
                                     "return_sequences": return_sequences},
                   (2, 7, 4), output_shape, tmp_path, expected_num_trainable_weights=14)


def test_output_is_the_stack_of_blocks_written_out():
    x = np.random.default_rng(0).normal(size=(2, 9, 2)).astype("float32")
    tcn = TemporalConvNet(filters=3, kernel_size=2, dilations=[1, 2, 4], bias_initializer="random_normal")
    z = numpy(tcn(x))
    expected = x
    for block, d in zip(tcn.blocks, [1, 2, 4], strict=True):
        assert block.dilation == d
        expected = temporal_block(block, expected)
    np.testing.assert_allclose(z, expected, rtol=1e-5, atol=1e-5)


def _read_positions(tcn, x, t):
    """The input steps whose change changes output t, in one batched call."""
    changed = np.repeat(x, x.shape[1], axis=0)  # row s: x with step s moved
    changed[np.arange(x.shape[1]), np.arange(x.shape[1])] += 3.0
    moved = ~np.isclose(numpy(tcn(changed))[:, t], numpy(tcn(x))[0, t], rtol=0, atol=1e-7).all(axis=-1)
    return [int(s) for s in np.flatnonzero(moved)]


def test_no_output_reads_a_later_input():
    x = np.random.default_rng(1).normal(size=(1, 10, 2)).astype("float32")
    tcn = TemporalConvNet(filters=4, kernel_size=3, dilations=[1, 2], bias_initializer="ones")
    z = numpy(tcn(x))
    futures = np.repeat(x, 3, axis=0)
    for row, t in enumerate((0, 4, 8)):  # new inputs after t
        futures[row, t + 1 :] = np.random.default_rng(t).normal(size=futures[row, t + 1 :].shape)
    changed = numpy(tcn(futures))
    for row, t in enumerate((0, 4, 8)):
        np.testing.assert_array_equal(changed[row, : t + 1], z[0, : t + 1])
        assert not np.allclose(changed[row, t + 1], z[0, t + 1])


def test_the_receptive_field_is_exact():
    tcn = TemporalConvNet(filters=4, kernel_size=3, dilations=[1, 2], bias_initializer="ones")
    assert tcn.receptive_field == 13  # 1 + 2 (3 - 1)(2^2 - 1)
    x = np.random.default_rng(2).normal(size=(1, 16, 2)).astype("float32")
    t = 15
    read = _read_positions(tcn, x, t)
    assert t - 13 not in read and t - 12 in read  # t - R: outside; t - R + 1: the oldest step read
    assert read == tcn.receptive_positions(t) == list(range(t - 12, t + 1))


def test_dilations_that_skip_steps_leave_holes_the_positions_list():
    tcn = TemporalConvNet(filters=4, kernel_size=2, dilations=[1, 4], bias_initializer="ones")
    x = np.random.default_rng(3).normal(size=(1, 12, 2)).astype("float32")
    t = 11
    read = tcn.receptive_positions(t)
    assert read == [1, 2, 3, 5, 6, 7, 9, 10, 11]  # offsets {0, 1, 2} + {0, 4, 8}
    assert _read_positions(tcn, x, t) == read


@pytest.mark.parametrize("weight_norm", [True, False])
def test_stepping_gives_the_outputs_of_the_whole_sequence(weight_norm):
    x = np.random.default_rng(4).normal(size=(2, 12, 3)).astype("float32")
    tcn = TemporalConvNet(filters=4, kernel_size=3, dilations=[1, 2, 4], dropout=0.3, weight_norm=weight_norm,
                          bias_initializer="random_normal")
    z = numpy(tcn(x))
    state = tcn.initial_state(2)
    assert [tuple(s.shape[1:]) for s in state] == [(2, 3), (2, 4), (4, 4), (4, 4), (8, 4), (8, 4)]
    for t in range(12):
        z_t, state = tcn.step(x[:, t], state)
        np.testing.assert_allclose(numpy(z_t), z[:, t], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kernel_size", [1, 2])
def test_reading_spans_from_a_carried_state_gives_the_outputs_of_the_whole_sequence(kernel_size):
    x = np.random.default_rng(5).normal(size=(2, 11, 3)).astype("float32")
    tcn = TemporalConvNet(filters=4, kernel_size=kernel_size, dilations=[1, 2], bias_initializer="random_normal")
    z = numpy(tcn(x))
    first, state = tcn.read(x[:, :4], tcn.initial_state(2))
    second, state = tcn.read(x[:, 4:], state)  # a prompt, then the rest from the buffers it left
    np.testing.assert_allclose(np.concatenate([numpy(first), numpy(second)], axis=1), z, rtol=1e-5, atol=1e-5)
    history = kernel_size - 1  # (k-1)d steps per buffer: d = 1, then 2
    assert [tuple(s.shape[1:]) for s in state] == [(history, 3), (history, 4), (2 * history, 4), (2 * history, 4)]


@pytest.mark.parametrize("side", ["right", "left"])
def test_each_real_step_gets_the_output_of_its_unpadded_sequence(side):
    rng = np.random.default_rng(5)
    sequence = rng.normal(size=(1, 4, 3)).astype("float32")
    junk = rng.normal(size=(1, 3, 3)).astype("float32")
    tcn = TemporalConvNet(filters=4, kernel_size=2, dilations=[1, 2], bias_initializer="random_normal")
    real = np.ones((1, 4), bool)
    pad = np.zeros((1, 3), bool)
    if side == "right":
        padded, mask, where = np.concatenate([sequence, junk], 1), np.concatenate([real, pad], 1), slice(0, 4)
    else:
        padded, mask, where = np.concatenate([junk, sequence], 1), np.concatenate([pad, real], 1), slice(3, 7)
    expected = numpy(tcn(sequence))
    np.testing.assert_allclose(numpy(tcn(padded, mask=mask))[:, where], expected, rtol=1e-5, atol=1e-6)
    tcn.return_sequences = False  # the last real step, wherever the padding is
    np.testing.assert_allclose(numpy(tcn(padded, mask=mask)), expected[:, -1], rtol=1e-5, atol=1e-6)


def test_the_mask_passes_on_with_sequences_only():
    ids = keras.Input((5,), dtype="int32")
    embedded = keras.layers.Embedding(6, 3, mask_zero=True)(ids)
    assert getattr(TemporalConvNet(2, 2, [1])(embedded), "_keras_mask", None) is not None
    assert getattr(TemporalConvNet(2, 2, [1], return_sequences=False)(embedded), "_keras_mask", None) is None


def test_stepping_needs_a_built_layer_and_its_own_state():
    tcn = TemporalConvNet(filters=2, kernel_size=2, dilations=[1, 2])
    with pytest.raises(ValueError, match="built"):
        tcn.initial_state(1)
    tcn(np.zeros((1, 3, 2), "float32"))
    with pytest.raises(ValueError, match="4 in all"):
        tcn.step(np.zeros((1, 2), "float32"), tcn.initial_state(1)[:2])


@pytest.mark.parametrize("kwargs, message", [
    ({"filters": 0}, "filters"), ({"filters": 2, "kernel_size": 0}, "kernel_size"),
    ({"filters": 2, "dilations": []}, "dilations"), ({"filters": 2, "dilations": [1, 0]}, "dilations"),
    ({"filters": 2, "dilations": 4}, "dilations"), ({"filters": 2, "dropout": -0.1}, "dropout"),
])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TemporalConvNet(**kwargs)
