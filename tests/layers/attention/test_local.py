import numpy as np
import pytest

from seqlab.layers.attention import LocalAttention
from tests.layers.attention.reference import (
    MASK,
    B,
    S,
    T,
    assert_saves_and_jits,
    np_,
    rand,
    score_reference,
    softmax_over,
    weights_of,
)


def predicted_position(layer, z, mask):
    """p_t = S_b sig(v_p^T tanh(W_p z_t)), S_b the real length of row b: (B, T)."""
    w = weights_of(layer)
    S_b = mask.sum(-1)[:, None]
    return S_b / (1.0 + np.exp(-(np.tanh(z @ w["W_p"]) @ w["v_p"])))


def local_reference(layer, z, z_bar, mask, p_t):
    """a_t(s) = align(z_t, z_bar_s) exp(-(s - p_t)^2 / (2 sigma^2)), align over the window's real s only."""
    s = np.arange(z_bar.shape[1])
    D = layer.half_width
    window = (np.abs(s - p_t[..., None]) <= D) & mask[:, None, :]
    align = softmax_over(score_reference(layer, z, z_bar), window)
    a = align * np.exp(-((s - p_t[..., None]) ** 2) / (2 * (D / 2) ** 2))
    return a @ z_bar, a


@pytest.mark.parametrize("score", ["dot", "general", "concat"])
def test_local_m_equals_the_numpy_reference(score):
    layer = LocalAttention(score=score, half_width=1)
    z, z_bar = rand(B, T, 4), rand(B, S, 4)
    position = np.array([0, 2, 4])
    context, weights, p_t = layer(z, z_bar, mask=MASK, position=position)
    np.testing.assert_array_equal(np_(p_t), np.broadcast_to(position, (B, T)))
    want_c, want_a = local_reference(layer, z, z_bar, MASK, np.broadcast_to(position, (B, T)).astype(float))
    np.testing.assert_allclose(np_(weights), want_a, atol=1e-5)
    np.testing.assert_allclose(np_(context), want_c, atol=1e-5)
    # 0 outside [p_t - D, p_t + D] and on padding (row 1, t = 2: s = 3 in the window, 4 and 5 padded).
    np.testing.assert_array_equal(np_(weights)[0, 0] > 0, [1, 1, 0, 0, 0, 0])
    np.testing.assert_array_equal(np_(weights)[1, 2] > 0, [0, 0, 0, 1, 0, 0])


def test_local_m_positions_default_to_the_decoder_steps():
    layer = LocalAttention(half_width=2)
    z, z_bar = rand(B, T, 4), rand(B, S, 4)
    default = layer(z, z_bar, mask=MASK)
    given = layer(z, z_bar, mask=MASK, position=np.arange(T))
    for got, want in zip(default, given, strict=True):
        np.testing.assert_allclose(np_(got), np_(want), atol=1e-6)


@pytest.mark.parametrize("score", ["dot", "general", "concat"])
def test_local_p_equals_the_numpy_reference(score):
    layer = LocalAttention(score=score, half_width=2, predictive=True)
    z, z_bar = rand(B, T, 4), rand(B, S, 4)
    context, weights, p_t = layer(z, z_bar, mask=MASK)
    want_p = predicted_position(layer, z, MASK)
    np.testing.assert_allclose(np_(p_t), want_p, atol=1e-5)
    want_c, want_a = local_reference(layer, z, z_bar, MASK, want_p)
    np.testing.assert_allclose(np_(weights), want_a, atol=1e-5)
    np.testing.assert_allclose(np_(context), want_c, atol=1e-5)
    assert np.all(np_(weights)[1, :, 4:] == 0.0)


def test_inside_the_window_the_weights_are_the_gaussian():
    # Equal scores: align is uniform over the window, so a_t(s) is the Gaussian over the window's size.
    layer = LocalAttention(score="dot", half_width=2)
    _, weights, _ = layer(np.zeros((1, 4), "float32"), rand(1, S, 4), position=2)
    s = np.arange(S)
    inside = np.abs(s - 2) <= 2  # s = 0 .. 4
    gaussian = np.exp(-((s - 2.0) ** 2) / (2 * 1.0**2))  # sigma = D / 2 = 1
    np.testing.assert_allclose(np_(weights)[0], np.where(inside, gaussian / inside.sum(), 0.0), atol=1e-6)


def test_local_p_positions_lie_in_zero_to_the_real_length():
    layer = LocalAttention(half_width=1, predictive=True)
    # Saturated sigmoid: v_p^T tanh(W_p z_t) = +120, -120 and 0 for the three steps.
    z = np.tile(np.array([[1, -1, 1, -1], [-1, 1, -1, 1], [1, 1, 1, 1]], "float32"), (B, 1, 1))
    layer(z, rand(B, S, 4), mask=MASK)
    layer.W_p.assign(np.eye(4, dtype="float32") * 50.0)
    layer.v_p.assign(np.array([30.0, -30.0, 30.0, -30.0], "float32"))
    _, weights, p_t = layer(z, rand(B, S, 4), mask=MASK)
    np.testing.assert_allclose(np_(p_t), [[S, 0, S / 2], [4, 0, 2]], atol=1e-5)  # S_b, not S, scales row 1
    assert np.all(np_(weights)[1, :, 4:] == 0.0)


@pytest.mark.parametrize("predictive", [False, True])
def test_one_query_equals_the_same_step_of_a_sequence(predictive):
    layer = LocalAttention(score="general", half_width=1, predictive=predictive)
    z, z_bar = rand(B, T, 4), rand(B, S, 4)
    position = None if predictive else np.array([1, 3, 5])
    sequence = [np_(o) for o in layer(z, z_bar, mask=MASK, position=position)]
    for t in range(T):
        step_position = None if predictive else np.full((B,), position[t])  # (B,); a scalar below
        one = [np_(o) for o in layer(z[:, t], z_bar, mask=MASK, position=step_position)]
        assert [o.shape for o in one] == [(B, 4), (B, S), (B,)]
        for got, want in zip(one, sequence, strict=True):
            np.testing.assert_allclose(got, want[:, t], atol=1e-6)
    if not predictive:
        scalar = layer(z[:, 1], z_bar, mask=MASK, position=3)
        np.testing.assert_allclose(np_(scalar[1]), sequence[1][:, 1], atol=1e-6)


@pytest.mark.parametrize("predictive", [False, True])
def test_saves_and_runs_jit_compiled(predictive, tmp_path):
    layer = LocalAttention(score="concat", half_width=1, predictive=predictive, units=3)
    assert_saves_and_jits(layer, (rand(B, T, 4), rand(B, S, 5), MASK), tmp_path)


@pytest.mark.parametrize("half_width", [0, -1, 1.5, True, "2"])
def test_half_width_must_be_a_positive_integer(half_width):
    with pytest.raises(ValueError, match="`half_width` \\(the window's D\\) must be an integer >= 1"):
        LocalAttention(half_width=half_width)


def test_predictive_must_be_a_bool():
    with pytest.raises(ValueError, match="`predictive` must be False \\(local-m\\) or True \\(local-p\\)"):
        LocalAttention(predictive="p")


def test_local_m_needs_a_position_for_one_query():
    with pytest.raises(ValueError, match="local-m: pass `position`"):
        LocalAttention()(rand(B, 4), rand(B, S, 4))


def test_local_p_refuses_a_position():
    with pytest.raises(ValueError, match="predicts p_t from the query; do not pass `position`"):
        LocalAttention(predictive=True)(rand(B, 4), rand(B, S, 4), position=2)


def test_units_need_a_user():
    with pytest.raises(ValueError, match="`units` is used by the 'concat' score and local-p's W_p only"):
        LocalAttention(score="dot", units=3)
    assert LocalAttention(score="dot", predictive=True, units=3).units == 3
