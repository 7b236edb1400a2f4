import numpy as np
import pytest

from seqlab.layers.attention import BahdanauAttention
from tests.layers.attention.reference import MASK, B, S, T, assert_saves_and_jits, np_, rand, softmax_over, weights_of


def bahdanau_reference(layer, s, h, mask):
    """e_ij = v^T tanh(W_1 h_{d,i-1} + W_2 h_{e,j}); a_ij = softmax_j over the real j; c_i = sum_j a_ij h_{e,j}."""
    w = weights_of(layer)
    e = np.tanh((s @ w["W_1"])[:, :, None, :] + (h @ w["W_2"])[:, None, :, :]) @ w["v"]  # (B, T, S)
    a = softmax_over(e, mask[:, None, :])
    return a @ h, a


def test_equals_the_numpy_reference_for_a_sequence_of_queries():
    layer = BahdanauAttention(units=5)
    s, h = rand(B, T, 3), rand(B, S, 4)
    context, weights = layer(s, h, mask=MASK)
    assert tuple(context.shape) == (B, T, 4) and tuple(weights.shape) == (B, T, S)
    want_c, want_a = bahdanau_reference(layer, s, h, MASK)
    np.testing.assert_allclose(np_(weights), want_a, atol=1e-5)
    np.testing.assert_allclose(np_(context), want_c, atol=1e-5)
    assert np.all(np_(weights)[1, :, 4:] == 0.0)
    np.testing.assert_allclose(np_(weights).sum(-1), 1.0, atol=1e-6)


def test_one_query_equals_the_same_step_of_a_sequence():
    layer = BahdanauAttention(units=5)
    s, h = rand(B, T, 3), rand(B, S, 4)
    context, weights = layer(s, h, mask=MASK)
    for t in range(T):
        c_t, a_t = layer(s[:, t], h, mask=MASK)
        assert tuple(c_t.shape) == (B, 4) and tuple(a_t.shape) == (B, S)
        np.testing.assert_allclose(np_(c_t), np_(context)[:, t], atol=1e-6)
        np.testing.assert_allclose(np_(a_t), np_(weights)[:, t], atol=1e-6)


def test_without_a_mask_every_position_counts():
    layer = BahdanauAttention(units=2)
    s, h = rand(B, 3), rand(B, S, 4)
    _, weights = layer(s, h)
    want = bahdanau_reference(layer, s[:, None], h, np.ones((B, S), bool))[1][:, 0]
    np.testing.assert_allclose(np_(weights), want, atol=1e-5)


def test_trains_saves_and_runs_jit_compiled(tmp_path):
    layer = BahdanauAttention(units=4)
    assert_saves_and_jits(layer, (rand(B, T, 3), rand(B, S, 4), MASK), tmp_path)
    assert [w.name for w in layer.trainable_weights] == ["W_1", "W_2", "v"]


@pytest.mark.parametrize("units", [0, -3, 2.5, None, True])
def test_units_must_be_a_positive_integer(units):
    with pytest.raises(ValueError, match="`units` must be a positive integer"):
        BahdanauAttention(units=units)


def test_values_must_be_a_sequence():
    with pytest.raises(ValueError, match=r"values \(the encoder states\) of shape \(batch, S, d_v\)"):
        BahdanauAttention(units=2)(rand(B, 3), rand(B, 4))
