import keras
import numpy as np
import pytest

from seqlab.layers.attention import (
    MultiHeadAttention,
    causal_mask,
    combine_masks,
    padding_mask,
    scaled_dot_product_attention,
    scaled_scores,
)
from tests.layers.attention.reference import np_, rand, softmax_over

B, T, S, D, H = 2, 5, 6, 8, 2
REAL = np.array([[True] * S, [True] * 4 + [False] * (S - 4)])  # row 1: 2 padded keys


def test_causal_mask_puts_the_queries_last():
    np.testing.assert_array_equal(np_(causal_mask(3)), np.tril(np.ones((3, 3), bool)))
    # 2 new queries over 4 keys: they are positions 2 and 3.
    np.testing.assert_array_equal(np_(causal_mask(2, 4)), [[1, 1, 1, 0], [1, 1, 1, 1]])
    np.testing.assert_array_equal(np_(causal_mask(2, 5, start=1)), [[1, 1, 0, 0, 0], [1, 1, 1, 0, 0]])


def test_padding_and_combined_masks_broadcast():
    mask = combine_masks(padding_mask(REAL), None, causal_mask(S))
    assert tuple(mask.shape) == (B, S, S)
    np.testing.assert_array_equal(np_(mask), REAL[:, None, :] & np.tril(np.ones((S, S), bool)))
    assert combine_masks(None, None) is None


def test_scaled_dot_product_attention_equals_the_formula_and_zeroes_masked_keys():
    q, k, v = rand(B, T, 4), rand(B, S, 4), rand(B, S, 3)
    want_scores = q @ k.transpose(0, 2, 1) / np.sqrt(4)  # a'_ij = q_i^T k_j / sqrt(d_k)
    np.testing.assert_allclose(np_(scaled_scores(q, k)), want_scores, rtol=1e-5, atol=1e-6)
    y, a = scaled_dot_product_attention(q, k, v, padding_mask(REAL))
    want_a = softmax_over(want_scores, REAL[:, None, :])
    np.testing.assert_allclose(np_(a), want_a, atol=1e-6)
    np.testing.assert_allclose(np_(y), want_a @ v, atol=1e-5)
    assert np.all(np_(a)[1, :, 4:] == 0.0)
    # A (T_q, T_k) mask broadcasts over the batch, aligned on the right.
    _, a = scaled_dot_product_attention(q, k, v, causal_mask(T, S))
    later = ~np.tril(np.ones((T, S), bool), k=S - T)  # key j > i + (S - T)
    assert np.all(np_(a)[:, later] == 0.0) and np.all(np_(a)[:, ~later] > 0.0)


def pair(option="split", **kwargs):
    """Our layer and Keras's, with the same weights (ours takes Keras's get_weights())."""
    key_dim = D // H if option == "split" else D
    reference = keras.layers.MultiHeadAttention(num_heads=H, key_dim=key_dim, **kwargs)
    x = rand(B, T, D)
    reference(x, x)
    ours = MultiHeadAttention(H, option=option, **kwargs)
    ours(x, x)
    ours.set_weights(reference.get_weights())
    return ours, reference


CASES = {
    "plain": {},
    "causal": {"use_causal_mask": True},
    "attention_mask": {"attention_mask": REAL[:, None, :T].repeat(T, axis=1)},
    "causal_and_mask": {"use_causal_mask": True, "attention_mask": REAL[:, None, :T].repeat(T, axis=1)},
}


@pytest.mark.parametrize("option", ["split", "full"])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("scores", [False, True], ids=["fused", "scores"])
def test_equals_keras_multi_head_attention_with_the_same_weights(option, case, scores):
    ours, reference = pair(option)
    x = rand(B, T, D)
    kwargs = CASES[case]
    got = ours(x, x, return_attention_scores=scores, **kwargs)
    want = reference(x, x, return_attention_scores=scores, **kwargs)
    for g, w in zip(got if scores else [got], want if scores else [want], strict=True):
        np.testing.assert_allclose(np_(g), np_(w), atol=1e-5)


def test_cross_attention_with_a_value_mask_equals_keras_and_ignores_padding_content():
    ours, reference = pair()
    query, value = rand(B, T, D), rand(B, S, D)
    reference(query, value)
    ours.set_weights(reference.get_weights())
    y, scores = ours(query, value, value_mask=REAL, return_attention_scores=True)
    want = reference(query, value, attention_mask=REAL[:, None, :].repeat(T, axis=1))
    np.testing.assert_allclose(np_(y), np_(want), atol=1e-5)
    assert tuple(scores.shape) == (B, H, T, S) and np.all(np_(scores)[1, :, :, 4:] == 0.0)
    changed = value.copy()
    changed[1, 4:] = 100.0  # new padding content
    np.testing.assert_allclose(np_(ours(query, changed, value_mask=REAL)), np_(y), atol=1e-5)


def test_keras_masks_propagate_into_the_value_mask():
    ours, _ = pair()
    tokens = np.array([[1, 2, 3, 4, 5], [1, 2, 3, 0, 0]])
    inputs = keras.Input((T,), dtype="int32")
    embedding = keras.layers.Embedding(9, D, mask_zero=True)
    model = keras.Model(inputs, ours(embedding(inputs), embedding(inputs)))
    embedded = np_(embedding(tokens))  # a plain array: no Keras mask attached
    want = ours(embedded, embedded, value_mask=tokens != 0)
    np.testing.assert_allclose(np_(model(tokens)), np_(want), atol=1e-6)
    assert not np.allclose(np_(want), np_(ours(embedded, embedded)))  # the mask did something


@pytest.mark.parametrize("case", CASES)
def test_fused_and_scores_paths_agree(case):
    layer = MultiHeadAttention(H)
    x = rand(B, T, D)
    fused = layer(x, x, **CASES[case])
    explicit, _ = layer(x, x, return_attention_scores=True, **CASES[case])
    np.testing.assert_allclose(np_(fused), np_(explicit), atol=1e-5)


def test_full_option_has_heads_of_width_d_and_a_d_by_dh_output_matrix():
    layer = MultiHeadAttention(H, option="full")
    x = rand(B, T, D)
    y, scores = layer(x, x, return_attention_scores=True)
    assert tuple(y.shape) == (B, T, D) and tuple(scores.shape) == (B, H, T, T)
    shapes = {w.name: tuple(w.shape) for w in layer.weights}
    assert shapes["W_Q"] == (D, H, D) and shapes["W_O"] == (H, D, D)  # W^O: d x (d h)
    assert np.prod(shapes["W_O"]) == D * D * H


def test_causal_attention_never_leaks_a_later_token():
    layer = MultiHeadAttention(H)
    x = rand(B, T, D)
    y = np_(layer(x, x, use_causal_mask=True))
    for t in range(T - 1):
        changed = x.copy()
        changed[:, t + 1 :] = rand(B, T - t - 1, D)
        np.testing.assert_allclose(np_(layer(changed, changed, use_causal_mask=True))[:, : t + 1], y[:, : t + 1],
                                   atol=1e-6)


def test_attend_over_a_projected_cache_equals_the_call():
    layer = MultiHeadAttention(H)
    query, value = rand(B, T, D), rand(B, S, D)
    k, v = layer.project_key_value(value)
    assert tuple(k.shape) == tuple(v.shape) == (B, H, S, D // H)
    out, scores = layer.attend(query, k, v, attention_mask=padding_mask(REAL))
    y, want_scores = layer(query, value, value_mask=REAL, return_attention_scores=True)
    np.testing.assert_allclose(np_(out), np_(y), atol=1e-6)
    np.testing.assert_allclose(np_(scores), np_(want_scores), atol=1e-6)


def test_saves_loads_and_round_trips_its_config(tmp_path):
    layer = MultiHeadAttention(H, option="full", dropout=0.1, seed=3)
    query, value = keras.Input((T, D)), keras.Input((S, 4))
    y, scores = layer(query, value, return_attention_scores=True)
    model = keras.Model([query, value], [y, scores])
    inputs = [rand(B, T, D), rand(B, S, 4)]
    want = [np_(o) for o in model(inputs)]
    model.save(tmp_path / "mha.keras")
    loaded = keras.models.load_model(tmp_path / "mha.keras")
    for got, w in zip(loaded(inputs), want, strict=True):
        np.testing.assert_allclose(np_(got), w, atol=1e-6)
    config = layer.get_config()
    assert MultiHeadAttention.from_config(config).get_config() == config


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"num_heads": 3}, "divide"),
        ({"num_heads": 2, "option": "half"}, "option"),
        ({"num_heads": 0}, "num_heads"),
        ({"num_heads": 2, "key_dim": -1}, "key_dim"),
        ({"num_heads": 2, "dropout": 1.5}, "dropout"),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs, words):
    with pytest.raises(ValueError, match=words):
        layer = MultiHeadAttention(**kwargs)
        x = rand(B, T, D)
        layer(x, x)
