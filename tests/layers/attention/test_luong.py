import keras
import numpy as np
import pytest

from seqlab.layers.attention import AttentionalState, LuongAttention
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


WIDTHS = {"dot": (4, 4), "general": (3, 4), "concat": (3, 4)}


@pytest.mark.parametrize("score", ["dot", "general", "concat"])
def test_each_score_equals_the_numpy_reference(score):
    d_q, d_v = WIDTHS[score]
    layer = LuongAttention(score=score)
    z, z_bar = rand(B, T, d_q), rand(B, S, d_v)
    context, weights = layer(z, z_bar, mask=MASK)
    np.testing.assert_allclose(np_(layer.score(z, z_bar)), score_reference(layer, z, z_bar), atol=1e-5)
    want_a = softmax_over(score_reference(layer, z, z_bar), MASK[:, None, :])  # a_t(s) = align(z_t, z_bar_s)
    np.testing.assert_allclose(np_(weights), want_a, atol=1e-5)
    np.testing.assert_allclose(np_(context), want_a @ z_bar, atol=1e-5)  # c_t = sum_s a_t(s) z_bar_s
    assert np.all(np_(weights)[1, :, 4:] == 0.0)
    np.testing.assert_allclose(np_(weights).sum(-1), 1.0, atol=1e-6)


@pytest.mark.parametrize("score", ["dot", "general", "concat"])
def test_one_query_equals_the_same_step_of_a_sequence(score):
    d_q, d_v = WIDTHS[score]
    layer = LuongAttention(score=score)
    z, z_bar = rand(B, T, d_q), rand(B, S, d_v)
    context, weights = layer(z, z_bar, mask=MASK)
    for t in range(T):
        c_t, a_t = layer(z[:, t], z_bar, mask=MASK)
        np.testing.assert_allclose(np_(c_t), np_(context)[:, t], atol=1e-6)
        np.testing.assert_allclose(np_(a_t), np_(weights)[:, t], atol=1e-6)


def test_concat_units_set_the_hidden_width():
    layer = LuongAttention(score="concat", units=7)
    layer(rand(B, 3), rand(B, S, 4))
    assert weights_of(layer)["W_a"].shape == (3 + 4, 7) and weights_of(layer)["v_a"].shape == (7,)


@pytest.mark.parametrize("score", ["dot", "general", "concat"])
def test_saves_and_runs_jit_compiled(score, tmp_path):
    d_q, d_v = WIDTHS[score]
    assert_saves_and_jits(LuongAttention(score=score), (rand(B, T, d_q), rand(B, S, d_v), MASK), tmp_path)


def test_unknown_score_is_refused():
    expected = r"`score` must be one of \('dot', 'general', 'concat'\). Received: score='cos'"
    with pytest.raises(ValueError, match=expected):
        LuongAttention(score="cos")


def test_dot_needs_equal_widths():
    expected = "'dot' score needs queries and values of the same width; received d_q=3 and d_v=4"
    with pytest.raises(ValueError, match=expected):
        LuongAttention(score="dot")(rand(B, 3), rand(B, S, 4))


@pytest.mark.parametrize("score", ["dot", "general"])
def test_units_are_for_the_concat_score_only(score):
    with pytest.raises(ValueError, match="`units` is used by the 'concat' score only"):
        LuongAttention(score=score, units=4)


def test_attentional_state_equals_the_numpy_reference():
    layer = AttentionalState(units=5)
    c, z = rand(B, T, 4), rand(B, T, 3)
    z_tilde = np_(layer(c, z))
    W_c = weights_of(layer)["W_c"]
    np.testing.assert_allclose(z_tilde, np.tanh(np.concatenate([c, z], -1) @ W_c), atol=1e-5)  # tanh(W_c [c_t ; z_t])
    D, V = np_(layer.D), np_(layer.V)  # tanh(V z_t + D c_t), the notes' form
    notes_form = np.tanh(np.einsum("ud,btd->btu", V, z) + np.einsum("uc,btc->btu", D, c))
    np.testing.assert_allclose(z_tilde, notes_form, atol=1e-5)
    np.testing.assert_allclose(np_(layer(c[:, 1], z[:, 1])), z_tilde[:, 1], atol=1e-6)


def test_attentional_state_saves(tmp_path):
    layer = AttentionalState(units=2)
    c, z = rand(B, 4), rand(B, 3)
    inputs = [keras.Input(shape=(4,)), keras.Input(shape=(3,))]
    model = keras.Model(inputs, layer(*inputs))
    model.save(tmp_path / "state.keras")
    loaded = keras.models.load_model(tmp_path / "state.keras")
    np.testing.assert_allclose(loaded.predict([c, z], verbose=0), np_(layer(c, z)), atol=1e-6)


def test_attentional_state_needs_matching_ranks():
    with pytest.raises(ValueError, match="same rank with known widths"):
        AttentionalState(units=2)(rand(B, T, 4), rand(B, 3))
