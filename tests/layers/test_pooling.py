import keras
import numpy as np
import pytest
import tensorflow as tf

from seqlab.layers import MaskedGlobalAveragePooling1D, MaskedGlobalMaxPooling1D
from tests.layers.layer_test import run_layer_test

MASK = np.array([[True, True, True, False], [True, False, False, False], [False, False, False, False]])


@pytest.mark.parametrize("layer_cls", [MaskedGlobalMaxPooling1D, MaskedGlobalAveragePooling1D])
def test_layer_contract(layer_cls, tmp_path):
    run_layer_test(layer_cls, {}, (2, 5, 3), (2, 3), tmp_path, expected_num_trainable_weights=0,
                   run_training_check=False)


def test_max_and_mean_over_the_real_steps_only_and_zero_without_one():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4, 2)).astype("float32")
    x[~MASK] = 100.0  # padding that would win any max and shift any mean
    largest = keras.ops.convert_to_numpy(MaskedGlobalMaxPooling1D()(x, mask=MASK))
    mean = keras.ops.convert_to_numpy(MaskedGlobalAveragePooling1D()(x, mask=MASK))
    for n, real in enumerate(MASK):
        expected_max = x[n, real].max(axis=0) if real.any() else np.zeros(2)
        expected_mean = x[n, real].mean(axis=0) if real.any() else np.zeros(2)
        np.testing.assert_allclose(largest[n], expected_max, rtol=1e-6)
        np.testing.assert_allclose(mean[n], expected_mean, rtol=1e-6)


def test_negative_features_keep_their_max_and_no_mask_means_every_step():
    x = -np.arange(1, 7, dtype="float32").reshape(1, 3, 2)  # all negative: the max is not 0
    np.testing.assert_allclose(keras.ops.convert_to_numpy(MaskedGlobalMaxPooling1D()(x)), [[-1.0, -2.0]])
    np.testing.assert_allclose(keras.ops.convert_to_numpy(MaskedGlobalAveragePooling1D()(x)), [[-3.0, -4.0]])


def test_the_mask_of_an_embedding_reaches_the_pooling_and_stops_there():
    ids = keras.Input((4,), dtype="int32")
    embedded = keras.layers.Embedding(5, 2, mask_zero=True)(ids)
    pooled = MaskedGlobalMaxPooling1D()(embedded)
    assert getattr(pooled, "_keras_mask", None) is None
    model = keras.Model(ids, pooled)
    table = keras.ops.convert_to_numpy(model.layers[1].embeddings)
    out = keras.ops.convert_to_numpy(model(np.array([[3, 0, 0, 0]])))
    np.testing.assert_allclose(out, table[3:4])  # the [PAD] row never enters


def test_gradients_do_not_flow_to_the_padding():
    x = tf.Variable(np.random.default_rng(1).normal(size=(1, 3, 2)).astype("float32"))
    with tf.GradientTape() as tape:
        total = tf.reduce_sum(MaskedGlobalMaxPooling1D()(x, mask=np.array([[True, True, False]])))
    grad = tape.gradient(total, x).numpy()
    assert np.all(np.isfinite(grad)) and np.all(grad[0, 2] == 0)


@pytest.mark.parametrize("layer_cls", [MaskedGlobalMaxPooling1D, MaskedGlobalAveragePooling1D])
def test_inputs_without_a_time_axis_are_refused(layer_cls):
    with pytest.raises(ValueError, match=r"\(batch, steps, features\)"):
        layer_cls()(np.zeros((2, 3), "float32"))
