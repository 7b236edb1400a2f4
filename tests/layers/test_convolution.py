import keras
import numpy as np
import pytest

from seqlab.layers import ParallelConv1D
from tests.layers.layer_test import run_layer_test


def test_layer_contract(tmp_path):
    # A kernel and a bias per width.
    run_layer_test(ParallelConv1D, {"filters": 3, "widths": [2, 3]}, (2, 6, 4), (2, 6, 6), tmp_path,
                   expected_num_trainable_weights=4)


def test_each_width_is_a_zero_padded_convolution_written_out():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 5, 3)).astype("float32")
    conv = ParallelConv1D(filters=2, widths=[2, 3], activation="linear")
    z = keras.ops.convert_to_numpy(conv(x))
    for i, k in enumerate(conv.widths):
        kernel, bias = (keras.ops.convert_to_numpy(w) for w in conv.convolutions[i].weights)  # (k, F, filters)
        before = (k - 1) // 2
        padded = np.pad(x, ((0, 0), (before, k - 1 - before), (0, 0)))  # zeros at the boundaries
        expected = np.stack([np.einsum("njf,jfc->nc", padded[:, t : t + k], kernel) for t in range(5)], 1) + bias
        np.testing.assert_allclose(z[..., 2 * i : 2 * i + 2], expected, rtol=1e-5, atol=1e-5)


def test_padded_steps_read_as_the_zeros_beyond_the_end_and_the_mask_passes_on():
    rng = np.random.default_rng(1)
    sentence = rng.normal(size=(1, 3, 4)).astype("float32")
    padded = np.concatenate([sentence, rng.normal(size=(1, 2, 4)).astype("float32")], axis=1)  # junk padding
    conv = ParallelConv1D(filters=2, widths=[2, 3, 4])
    mask = np.array([[True, True, True, False, False]])
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(conv(padded, mask=mask))[:, :3],
        keras.ops.convert_to_numpy(conv(sentence)), rtol=1e-5, atol=1e-6,
    )
    ids = keras.Input((5,), dtype="int32")
    out = conv(keras.layers.Embedding(6, 4, mask_zero=True)(ids))
    assert getattr(out, "_keras_mask", None) is not None


@pytest.mark.parametrize("kwargs, message", [
    ({"filters": 0}, "filters"), ({"filters": 2, "widths": []}, "widths"), ({"filters": 2, "widths": [3, 0]}, "widths"),
    ({"filters": 2, "widths": 3}, "widths"),
])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ParallelConv1D(**kwargs)
