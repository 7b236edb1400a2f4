import keras
import numpy as np
import pytest

from seqlab.layers.tcn import CausalConv1D
from tests.layers.layer_test import run_layer_test
from tests.layers.tcn.reference import causal_conv, numpy


@pytest.mark.parametrize("weight_norm, weights", [(True, 3), (False, 2)])  # v, g, bias / kernel, bias
def test_layer_contract(tmp_path, weight_norm, weights):
    run_layer_test(CausalConv1D, {"filters": 3, "kernel_size": 2, "dilation": 2, "weight_norm": weight_norm},
                   (2, 6, 4), (2, 6, 3), tmp_path, expected_num_trainable_weights=weights)


@pytest.mark.parametrize("kernel_size, dilation", [(1, 1), (2, 1), (3, 2), (2, 5)])
def test_output_is_the_dilated_causal_convolution_written_out(kernel_size, dilation):
    x = np.random.default_rng(0).normal(size=(2, 7, 3)).astype("float32")
    conv = CausalConv1D(filters=4, kernel_size=kernel_size, dilation=dilation, bias_initializer="random_normal")
    y = numpy(conv(x))
    expected = causal_conv(x, numpy(conv.kernel), numpy(conv.bias), dilation)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kernel_size, dilation", [(2, 1), (3, 4)])
def test_without_weight_norm_it_is_keras_causal_conv1d(kernel_size, dilation):
    x = np.random.default_rng(3).normal(size=(2, 11, 3)).astype("float32")
    ours = CausalConv1D(filters=4, kernel_size=kernel_size, dilation=dilation, weight_norm=False)
    theirs = keras.layers.Conv1D(4, kernel_size, padding="causal", dilation_rate=dilation)
    theirs.build(x.shape)
    theirs.set_weights([w + 0.1 for w in theirs.get_weights()])  # a bias that is not zero
    ours.build(x.shape)
    ours.set_weights(theirs.get_weights())  # the same layout: kernel (k, features, filters), bias
    np.testing.assert_allclose(numpy(ours(x)), numpy(theirs(x)), rtol=1e-5, atol=1e-5)


def test_weight_norm_splits_each_output_channel_into_length_and_direction():
    conv = CausalConv1D(filters=3, kernel_size=2)
    conv.build((None, None, 4))
    v = numpy(conv.v)
    np.testing.assert_allclose(numpy(conv.kernel), v, rtol=1e-6)  # g starts at ||v||: f = v
    conv.g.assign([2.0, 0.5, 1.0])
    norms = np.sqrt((v**2).sum(axis=(0, 1)))
    np.testing.assert_allclose(numpy(conv.kernel), v * np.array([2.0, 0.5, 1.0]) / norms, rtol=1e-5)
    np.testing.assert_allclose(np.sqrt((numpy(conv.kernel) ** 2).sum(axis=(0, 1))), [2.0, 0.5, 1.0], rtol=1e-5)


def test_stepping_gives_the_outputs_of_the_whole_sequence():
    x = np.random.default_rng(1).normal(size=(2, 9, 3)).astype("float32")
    conv = CausalConv1D(filters=4, kernel_size=3, dilation=2, bias_initializer="random_normal")
    y = numpy(conv(x))
    state = conv.initial_state(2)
    assert tuple(state.shape) == (2, 4, 3)  # the (k-1)d = 4 inputs before t
    for t in range(9):
        y_t, state = conv.step(x[:, t], state)
        np.testing.assert_allclose(numpy(y_t), y[:, t], rtol=1e-5, atol=1e-5)


def test_padded_steps_read_as_zeros_and_the_mask_passes_on():
    x = np.random.default_rng(2).normal(size=(1, 6, 3)).astype("float32")
    conv = CausalConv1D(filters=2, kernel_size=2, dilation=2)
    mask = np.array([[False, False, True, True, True, True]])
    zeroed = x * mask[..., None]
    np.testing.assert_allclose(numpy(conv(x, mask=mask)), numpy(conv(zeroed)), rtol=1e-6)
    ids = keras.Input((5,), dtype="int32")
    assert getattr(conv(keras.layers.Embedding(6, 3, mask_zero=True)(ids)), "_keras_mask", None) is not None


def test_initial_state_needs_a_built_layer():
    with pytest.raises(ValueError, match="built"):
        CausalConv1D(filters=2, kernel_size=2).initial_state(1)


@pytest.mark.parametrize("kwargs, message", [
    ({"filters": 0, "kernel_size": 2}, "filters"), ({"filters": 2, "kernel_size": 0}, "kernel_size"),
    ({"filters": 2, "kernel_size": 2, "dilation": 0}, "dilation"),
    ({"filters": 2, "kernel_size": 2.5}, "kernel_size"), ({"filters": "4", "kernel_size": 2}, "filters"),
])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        CausalConv1D(**kwargs)
