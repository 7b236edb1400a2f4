import keras
import numpy as np
import pytest

from seqlab.layers.transformer import LearnedPositionalEmbedding, SinusoidalPositionalEncoding, sinusoidal_encoding

np_ = keras.ops.convert_to_numpy


def pos_enc(length, r, n):
    """The seeds: PosEnc(t, 2i) = sin((t-1)/n^(2i/r)), PosEnc(t, 2i+1) = cos((t-1)/n^(2i/r)), t = 1, 2, ..."""
    table = np.zeros((length, r))
    for t in range(1, length + 1):
        for i in range((r + 1) // 2):
            table[t - 1, 2 * i] = np.sin((t - 1) / n ** (2 * i / r))
            if 2 * i + 1 < r:
                table[t - 1, 2 * i + 1] = np.cos((t - 1) / n ** (2 * i / r))
    return table


@pytest.mark.parametrize("r, n", [(8, 10000.0), (6, 100.0), (5, 10000.0)])
def test_sinusoidal_encoding_equals_the_seeds_formula(r, n):
    got = np_(sinusoidal_encoding(12, r, base=n))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, pos_enc(12, r, n), atol=1e-5)
    np.testing.assert_allclose(np_(sinusoidal_encoding(4, r, base=n, start=8)), pos_enc(12, r, n)[8:], atol=1e-5)


def test_the_layer_adds_the_encoding_from_start(tmp_path):
    layer = SinusoidalPositionalEncoding(base=100.0)
    x = np.random.default_rng(0).normal(size=(2, 5, 6)).astype("float32")
    np.testing.assert_allclose(np_(layer(x)), x + pos_enc(5, 6, 100.0), atol=1e-5)
    np.testing.assert_allclose(np_(layer(x, start=3)), x + pos_enc(8, 6, 100.0)[3:], atol=1e-5)
    inputs = keras.Input((None, 6))
    model = keras.Model(inputs, layer(inputs))
    model.save(tmp_path / "pos.keras")
    np.testing.assert_allclose(np_(keras.models.load_model(tmp_path / "pos.keras")(x)), np_(layer(x)), atol=1e-6)
    assert SinusoidalPositionalEncoding.from_config(layer.get_config()).get_config() == layer.get_config()


def test_learned_positions_add_rows_of_p_and_refuse_too_long_inputs(tmp_path):
    layer = LearnedPositionalEmbedding(max_length=6)
    x = np.random.default_rng(1).normal(size=(2, 4, 3)).astype("float32")
    y = np_(layer(x))
    P = np_(layer.P)
    np.testing.assert_allclose(y, x + P[:4], atol=1e-6)
    np.testing.assert_allclose(np_(layer(x[:, :2], start=4)), x[:, :2] + P[4:6], atol=1e-6)
    with pytest.raises(ValueError, match="max_length"):
        layer(np.zeros((1, 7, 3), "float32"))
    with pytest.raises(ValueError, match="max_length"):
        layer(x, start=3)
    with pytest.raises(ValueError, match="max_length"):
        LearnedPositionalEmbedding(max_length=4)(np.zeros((1, 5, 3), "float32"))
    inputs = keras.Input((4, 3))
    model = keras.Model(inputs, layer(inputs))
    model.save(tmp_path / "learned.keras")
    np.testing.assert_allclose(np_(keras.models.load_model(tmp_path / "learned.keras")(x)), y, atol=1e-6)
    config = layer.get_config()
    assert LearnedPositionalEmbedding.from_config(config).get_config() == config


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: LearnedPositionalEmbedding(max_length=-1), "max_length"),
        (lambda: SinusoidalPositionalEncoding(base=1.0), "base"),
        (lambda: sinusoidal_encoding(4, 0), "depth"),
    ],
)
def test_bad_arguments_raise(make, words):
    with pytest.raises(ValueError, match=words):
        make()
