import numpy as np
import tensorflow as tf
from keras import ops

from seqlab.layers.attention import gaussian_window, local_window, masked_softmax
from tests.layers.attention.reference import MASK, np_, rand, softmax_over


def test_masked_softmax_sums_to_one_over_the_real_positions_and_is_zero_on_padding():
    scores = rand(2, 6)
    weights = np_(masked_softmax(scores, MASK))
    np.testing.assert_allclose(weights, softmax_over(scores, MASK), atol=1e-6)
    assert np.all(weights[1, 4:] == 0.0)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-6)


def test_without_a_mask_it_is_the_softmax():
    scores = rand(2, 3, 6)
    np.testing.assert_allclose(np_(masked_softmax(scores)), np_(ops.softmax(scores, axis=-1)), atol=1e-6)


def test_a_source_mask_applies_to_every_query():
    scores = rand(2, 3, 6)  # (B, T, S) with a (B, S) mask
    weights = np_(masked_softmax(scores, MASK))
    np.testing.assert_allclose(weights, softmax_over(scores, MASK[:, None, :]), atol=1e-6)
    assert np.all(weights[1, :, 4:] == 0.0)


def test_huge_scores_on_padding_change_nothing():
    scores = rand(2, 6)
    spiked = scores.copy()
    spiked[1, 4:] = 1e30
    np.testing.assert_allclose(np_(masked_softmax(spiked, MASK)), np_(masked_softmax(scores, MASK)), atol=1e-6)


def test_a_row_without_real_positions_gets_zeros_and_finite_gradients():
    scores = tf.constant(rand(2, 6) * 1e3)
    mask = np.array([[False] * 6, [True] + [False] * 5])
    with tf.GradientTape() as tape:
        tape.watch(scores)
        weights = masked_softmax(scores, mask)
        loss = tf.reduce_sum(weights * tf.range(6, dtype=weights.dtype))
    assert np.all(np_(weights)[0] == 0.0) and np_(weights)[1, 0] == 1.0
    assert np.all(np.isfinite(np_(tape.gradient(loss, scores))))


def test_local_window_holds_the_positions_within_d_of_p_t():
    window = np_(local_window(ops.convert_to_tensor([2.5, 0.0]), 6, 1))
    np.testing.assert_array_equal(window, [[0, 0, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0]])
    window = np_(local_window(ops.convert_to_tensor([3.0]), 6, 2))
    np.testing.assert_array_equal(window, [[0, 1, 1, 1, 1, 1]])


def test_gaussian_window_is_the_notes_gaussian():
    p_t, sigma = 2.3, 1.5
    got = np_(gaussian_window(ops.convert_to_tensor([p_t]), 6, sigma))[0]
    np.testing.assert_allclose(got, np.exp(-((np.arange(6) - p_t) ** 2) / (2 * sigma**2)), rtol=1e-6)
    assert np_(gaussian_window(ops.convert_to_tensor([4.0]), 6, sigma))[0, 4] == 1.0
