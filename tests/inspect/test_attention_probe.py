"""The attention probe: trace() records each layer's own weights per head, and the scores before the softmax."""

import keras
import numpy as np
import pytest

from seqlab.inspect import LayerResult, trace
from seqlab.inspect.attention import ATTENTION_AXES, AttentionTrace, key_labels, mask_future, scaled_scores
from seqlab.layers.attention import MultiHeadAttention, SelfAttention
from seqlab.layers.docs import equations
from seqlab.layers.transformer import TransformerDecoderBlock, TransformerEncoderBlock
from seqlab.plots.heads import softmax_rows

V, D, T, H = 11, 8, 6, 2


def encoder_model():
    """Embedding (0 is padding) -> post-norm block -> pre-norm block -> mean -> 3 classes."""
    keras.utils.set_random_seed(3)
    ids = keras.Input((T,), dtype="int32")
    embedding = keras.layers.Embedding(V, D, mask_zero=True, name="embedding")
    first = TransformerEncoderBlock(H, 16, name="block_1")
    second = TransformerEncoderBlock(H, 16, norm="pre", name="block_2")
    x = second(first(embedding(ids)))
    y = keras.layers.Dense(3)(keras.layers.GlobalAveragePooling1D()(x))
    return keras.Model(ids, y), embedding, first, second


def own_weights(block, x, mask):
    _, weights = block(x, mask=mask, return_attention_scores=True, training=False)
    return np.asarray(weights)[0]


def test_encoder_blocks_record_their_own_weights_and_padding_gets_zero():
    model, embedding, first, second = encoder_model()
    ids = np.array([3, 5, 7, 2, 0, 0], dtype="int32")  # two padding positions at the end
    tr = trace(model, ids, time_labels=["a", "b", "c", "d", "·", "·"])
    results = tr.of(AttentionTrace)
    assert [r.name for r in results] == ["block_1", "block_2"] and tr.cells == []
    assert all(isinstance(r, LayerResult) and r.axes["self"] == ATTENTION_AXES for r in results)
    mask = ids[None] != 0
    x = embedding(ids[None])
    h = first(x, mask=mask)
    for result, block, inputs in ((results[0], first, x), (results[1], second, h)):
        weights = result.arrays["self"]
        assert weights.shape == (H, T, T) and result.heads == H
        np.testing.assert_allclose(weights, own_weights(block, inputs, mask), atol=1e-6)
        np.testing.assert_allclose(weights[:, :, :4].sum(axis=-1), 1.0, atol=1e-5)  # over the real keys
        assert np.all(weights[:, :, 4:] == 0.0)  # a padded key gets nothing, from every query
        np.testing.assert_allclose(result.average(), weights.mean(axis=0))
    np.testing.assert_allclose(tr.outputs, np.asarray(model(ids[None]))[0], atol=1e-5)  # the probe changes nothing
    assert results[0].query_labels == ["a", "b", "c", "d", "·", "·"] and results[0].key_labels["self"][:2] == ["a", "b"]
    post, pre = equations(TransformerEncoderBlock)  # the docstring documents both; each block shows its own
    assert post.startswith(r"\text{post-norm:}") and pre.startswith(r"\text{pre-norm:}")
    assert results[0].equations == [post] and results[1].equations == [pre]


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_the_scores_are_the_layers_own_projections_masked_to_minus_infinity(norm):
    model, embedding, first, second = encoder_model()
    ids = np.array([4, 1, 9, 0, 0, 0], dtype="int32")
    tr = trace(model, ids)
    result = tr.layer("block_1" if norm == "post" else "block_2")
    scores = result.scores["self"]
    assert scores.shape == (H, T, T)
    assert np.all(np.isneginf(scores[:, :, 3:])) and np.all(np.isfinite(scores[:, :, :3]))
    # softmax_j(a'_ij) is exactly what the layer's heads weighed with: W^Q, W^K, scale and mask all right.
    np.testing.assert_allclose(softmax_rows(scores), result.arrays["self"], atol=1e-5)


def test_scaled_scores_by_hand_on_one_head():
    layer = MultiHeadAttention(num_heads=1, use_bias=False)
    x = np.random.default_rng(0).normal(size=(1, 3, 4)).astype("float32")
    layer(x, x)
    w_q, w_k = (np.asarray(w)[:, 0, :] for w in layer.get_weights()[:2])  # (d, d_k) of the one head
    q, k = x[0] @ w_q, x[0] @ w_k
    np.testing.assert_allclose(scaled_scores(layer, x)[0, 0], q @ k.T / np.sqrt(4), rtol=1e-5)


@pytest.mark.parametrize("attention", [MultiHeadAttention, keras.layers.MultiHeadAttention])
def test_a_bare_multi_head_attention_with_the_causal_mask(attention):
    keras.utils.set_random_seed(1)
    x_in = keras.Input((5, D))
    layer = attention(num_heads=H, key_dim=4, name="mha")
    model = keras.Model(x_in, layer(x_in, x_in, use_causal_mask=True))
    x = np.random.default_rng(2).normal(size=(5, D)).astype("float32")
    [result] = trace(model, x).of(AttentionTrace)
    _, own = layer(x[None], x[None], use_causal_mask=True, return_attention_scores=True)
    np.testing.assert_allclose(result.arrays["self"], np.asarray(own)[0], atol=1e-6)
    upper = np.triu(np.ones((5, 5), dtype=bool), k=1)
    assert np.all(np.isneginf(result.scores["self"][:, upper])) and np.all(result.arrays["self"][:, upper] == 0)
    np.testing.assert_allclose(softmax_rows(result.scores["self"]), result.arrays["self"], atol=1e-5)


def test_the_notes_self_attention_is_one_head_of_dot_products():
    z_in = keras.Input((4, 3))
    layer = SelfAttention(name="self_attention")
    model = keras.Model(z_in, layer(z_in))
    z = np.random.default_rng(3).normal(size=(4, 3)).astype("float32")
    [result] = trace(model, z).of(AttentionTrace)
    assert result.arrays["self"].shape == (1, 4, 4) and result.kind == "SelfAttention"
    np.testing.assert_allclose(result.scores["self"][0], z @ z.T, rtol=1e-5)
    np.testing.assert_allclose(result.arrays["self"][0], softmax_rows(z @ z.T), atol=1e-6)


def test_a_decoder_block_records_causal_self_attention_and_cross_attention():
    keras.utils.set_random_seed(4)
    target, source = keras.Input((4, D)), keras.Input((7, D))
    block = TransformerDecoderBlock(H, 16, name="decoder_block")
    model = keras.Model([target, source], block(target, source))
    rng = np.random.default_rng(5)
    x, context = rng.normal(size=(4, D)).astype("float32"), rng.normal(size=(7, D)).astype("float32")
    [result] = trace(model, [x, context], time_labels=list("wxyz")).of(AttentionTrace)
    assert result.attentions == ["self", "cross"]
    _, own = block(x[None], context[None], return_attention_scores=True)
    np.testing.assert_allclose(result.arrays["self"], np.asarray(own["self"])[0], atol=1e-6)
    np.testing.assert_allclose(result.arrays["cross"], np.asarray(own["cross"])[0], atol=1e-6)
    assert result.arrays["cross"].shape == (H, 4, 7) and result.key_labels["cross"] == list(range(1, 8))
    assert np.all(result.arrays["self"][:, np.triu(np.ones((4, 4), dtype=bool), k=1)] == 0)  # no peeking ahead
    np.testing.assert_allclose(softmax_rows(result.scores["self"]), result.arrays["self"], atol=1e-5)


def test_key_labels_are_the_trace_labels_where_they_fit_and_numbers_otherwise():
    assert key_labels(3, ["a", "b", "c"]) == ["a", "b", "c"]
    assert key_labels(5, ["a", "b"]) == [1, 2, 3, 4, 5]  # a cross-attention's context


def test_mask_future_is_the_layers_causal_mask_on_scores():
    scores = np.arange(6.0).reshape(2, 3)  # 2 queries, the last 2 of 3 positions (a key/value cache)
    np.testing.assert_array_equal(mask_future(scores), [[0.0, 1.0, -np.inf], [3.0, 4.0, 5.0]])
