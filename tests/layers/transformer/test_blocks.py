import keras
import numpy as np
import pytest
import tensorflow as tf

from seqlab.layers.transformer import PositionwiseFeedForward, TransformerDecoderBlock, TransformerEncoderBlock

np_ = keras.ops.convert_to_numpy
RNG = np.random.default_rng(0)
B, T, S, D, H = 2, 5, 6, 8, 2
REAL = np.array([[True] * T, [True] * 3 + [False] * 2])
SOURCE_REAL = np.array([[True] * S, [True] * 4 + [False] * 2])


def rand(*shape):
    return RNG.normal(size=shape).astype("float32")


def test_feed_forward_equals_the_formula(tmp_path):
    ffn = PositionwiseFeedForward(units=16)
    x = rand(B, T, D)
    y = np_(ffn(x))
    w = {v.name: np_(v) for v in ffn.weights}
    np.testing.assert_allclose(y, np.maximum(0, x @ w["W_1"] + w["b_1"]) @ w["W_2"] + w["b_2"], atol=1e-5)
    assert PositionwiseFeedForward.from_config(ffn.get_config()).get_config() == ffn.get_config()


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_encoder_block_is_its_sublayers_in_the_notes_order(norm):
    block = TransformerEncoderBlock(H, 16, norm=norm)
    x = rand(B, T, D)
    y, scores = block(x, mask=REAL, return_attention_scores=True)
    attend = lambda h: block.attention(h, h, value_mask=REAL)  # noqa: E731
    if norm == "post":  # x = LN(x + Sublayer(x))
        h = block.norm_1(x + attend(x))
        want = block.norm_2(h + block.feed_forward(h))
    else:  # x = x + Sublayer(LN(x))
        h = x + attend(block.norm_1(x))
        want = h + block.feed_forward(block.norm_2(h))
    np.testing.assert_allclose(np_(y), np_(want), atol=1e-5)
    assert tuple(scores.shape) == (B, H, T, T) and np.all(np_(scores)[1, :, :, 3:] == 0.0)


def test_encoder_block_ignores_padding_content_and_takes_keras_masks():
    block = TransformerEncoderBlock(H, 16)
    x = rand(B, T, D)
    y = np_(block(x, mask=REAL))
    changed = x.copy()
    changed[1, 3:] = 30.0
    np.testing.assert_allclose(np_(block(changed, mask=REAL))[1, :3], y[1, :3], atol=1e-5)
    tokens = np.array([[1, 2, 3, 4, 5], [1, 2, 3, 0, 0]])
    embedding = keras.layers.Embedding(9, D, mask_zero=True)
    inputs = keras.Input((T,), dtype="int32")
    model = keras.Model(inputs, block(embedding(inputs)))
    want = block(np_(embedding(tokens)), mask=tokens != 0)
    np.testing.assert_allclose(np_(model(tokens)), np_(want), atol=1e-5)


@pytest.mark.parametrize("cross", [True, False])
@pytest.mark.parametrize("norm", ["post", "pre"])
def test_decoder_block_never_leaks_a_later_token(cross, norm):
    block = TransformerDecoderBlock(H, 16, cross_attention=cross, norm=norm)
    x, context = rand(B, T, D), (rand(B, S, D) if cross else None)
    y = np_(block(x, context))
    for t in range(T - 1):
        changed = x.copy()
        changed[:, t + 1 :] = rand(B, T - t - 1, D)
        np.testing.assert_allclose(np_(block(changed, context))[:, : t + 1], y[:, : t + 1], atol=1e-5)


def test_decoder_block_scores_are_causal_and_skip_source_padding():
    block = TransformerDecoderBlock(H, 16)
    x, context = rand(B, T, D), rand(B, S, D)
    _, scores = block(x, context, mask=REAL, context_mask=SOURCE_REAL, return_attention_scores=True)
    own, cross = np_(scores["self"]), np_(scores["cross"])
    assert own.shape == (B, H, T, T) and cross.shape == (B, H, T, S)
    assert np.all(own[:, :, np.triu_indices(T, 1)[0], np.triu_indices(T, 1)[1]] == 0.0)
    assert np.all(own[1, :, :, 3:] == 0.0) and np.all(cross[1, :, :, 4:] == 0.0)
    _, gpt_scores = TransformerDecoderBlock(H, 16, cross_attention=False)(x, return_attention_scores=True)
    assert set(gpt_scores) == {"self"}


@pytest.mark.parametrize("cross", [True, False])
@pytest.mark.parametrize("norm", ["post", "pre"])
def test_decoder_step_with_a_cache_equals_the_full_call(cross, norm):
    block = TransformerDecoderBlock(H, 16, cross_attention=cross, norm=norm)
    x = rand(B, T, D)
    kwargs = {"context": rand(B, S, D), "context_mask": SOURCE_REAL} if cross else {}
    want = np_(block(x, **kwargs))
    cache = block.init_cache(B, max_length=T + 2)  # longer than needed: the empty slots stay unread
    assert tuple(cache[0].shape) == (B, H, T + 2, D // H)
    prefix, cache = block.step(x[:, :2], cache, 0, **kwargs)  # a prompt of 2 tokens at once
    steps = [np_(prefix)]
    for t in range(2, T):
        y_t, cache = block.step(x[:, t : t + 1], cache, t, **kwargs)
        steps.append(np_(y_t))
    np.testing.assert_allclose(np.concatenate(steps, axis=1), want, atol=1e-5)


def test_a_jit_compiled_step_takes_a_tensor_position_and_compiles_once():
    block = TransformerDecoderBlock(H, 16, cross_attention=False, norm="pre")
    x = rand(B, T, D)
    want = np_(block(x))
    step = tf.function(lambda x_t, cache, position: block.step(x_t, cache, position), jit_compile=True)
    cache = block.init_cache(B, T)
    for t in range(T):
        y_t, cache = step(x[:, t : t + 1], cache, tf.constant(t))
        np.testing.assert_allclose(np_(y_t), want[:, t : t + 1], atol=1e-5)
    assert step.experimental_get_tracing_count() == 1


def test_blocks_save_and_load_in_a_functional_model(tmp_path):
    source, target = keras.Input((S, D)), keras.Input((T, D))
    encoded = TransformerEncoderBlock(H, 16, option="full", norm="pre", dropout=0.1)(source)
    decoded, scores = TransformerDecoderBlock(H, 16, activation="gelu")(target, encoded, return_attention_scores=True)
    model = keras.Model([source, target], [decoded, scores["cross"]])
    inputs = [rand(B, S, D), rand(B, T, D)]
    want = [np_(o) for o in model(inputs)]
    model.save(tmp_path / "blocks.keras")
    loaded = keras.models.load_model(tmp_path / "blocks.keras")
    for got, w in zip(loaded(inputs), want, strict=True):
        np.testing.assert_allclose(np_(got), w, atol=1e-5)
    for layer in model.layers[2:]:
        config = layer.get_config()
        assert type(layer).from_config(config).get_config() == config


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: TransformerEncoderBlock(3, 16)(rand(B, T, D)), "divide"),
        (lambda: TransformerEncoderBlock(H, 16, norm="middle"), "norm"),
        (lambda: TransformerDecoderBlock(H, 16, option="both"), "option"),
        (lambda: TransformerEncoderBlock(H, -4), "ff_units"),
        (lambda: TransformerDecoderBlock(-1, 16), "num_heads"),
        (lambda: TransformerDecoderBlock(H, 16)(rand(B, T, D)), "context"),
        (lambda: TransformerDecoderBlock(H, 16, cross_attention=False)(rand(B, T, D), rand(B, S, D)), "context"),
        (lambda: TransformerDecoderBlock(H, 16).init_cache(B, 4), "Build"),
    ],
)
def test_bad_arguments_raise_clear_errors(make, words):
    with pytest.raises(ValueError, match=words):
        make()
