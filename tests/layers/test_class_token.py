"""The [CLS] token: prepended, learned, and never padding."""

import keras
import numpy as np
import pytest

from seqlab.layers.class_token import ClassToken


def test_the_same_learned_vector_goes_in_front_of_every_sequence_and_the_mask_grows():
    layer = ClassToken(initializer="ones")
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype("float32")
    mask = np.array([[True, True, False], [True, False, False]])
    y = keras.ops.convert_to_numpy(layer(x))
    assert y.shape == (2, 4, 4)
    np.testing.assert_array_equal(y[:, 0], np.ones((2, 4)))
    np.testing.assert_array_equal(y[:, 1:], x)
    np.testing.assert_array_equal(
        keras.ops.convert_to_numpy(layer.compute_mask(x, mask)), [[True, True, True, False], [True, True, False, False]]
    )
    assert layer.compute_mask(x, None) is None
    assert [w.name for w in layer.trainable_weights] == ["token"]


def test_config_round_trip_and_bad_shape():
    layer = ClassToken(name="cls")
    x = np.ones((1, 2, 3), "float32")
    layer(x)
    clone = ClassToken.from_config(layer.get_config())
    clone(x)
    clone.set_weights(layer.get_weights())
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(clone(x)), keras.ops.convert_to_numpy(layer(x)))
    with pytest.raises(ValueError, match=r"\(batch, steps, d\)"):
        ClassToken()(np.ones((2, 3), "float32"))
