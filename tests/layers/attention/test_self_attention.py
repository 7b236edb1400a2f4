import keras
import numpy as np
import pytest

from seqlab.layers.attention import SelfAttention
from tests.layers.attention.reference import np_, rand, softmax_over, weights_of

B, T, D = 2, 5, 4
REAL = np.array([[True] * T, [True] * 3 + [False] * 2])


def reference(layer, z, mask):
    """The notes: c_t = sum_t' align(z_t, z_t') z_t', z_{t,l} = tanh(V z_t + D c_t), in NumPy."""
    w = weights_of(layer)
    a = softmax_over(np.einsum("btd,bsd->bts", z, z), mask[:, None, :])
    c = a @ z
    return np.tanh(z @ w["V"] + c @ w["D"]), a


def test_equals_the_notes_formula_and_zeroes_padding():
    layer = SelfAttention()
    z = rand(B, T, D)
    y, a = layer(z, mask=REAL, return_attention_scores=True)
    want_y, want_a = reference(layer, z, REAL)
    np.testing.assert_allclose(np_(a), want_a, atol=1e-6)
    np.testing.assert_allclose(np_(y), want_y, atol=1e-5)
    assert np.all(np_(a)[1, :, 3:] == 0.0)
    changed = z.copy()
    changed[1, 3:] = 50.0
    np.testing.assert_allclose(np_(layer(changed, mask=REAL))[1, :3], np_(y)[1, :3], atol=1e-6)


def test_units_and_activation(tmp_path):
    layer = SelfAttention(activation="relu", units=3)
    inputs = keras.Input((T, D))
    model = keras.Model(inputs, layer(inputs))
    z = rand(B, T, D)
    y = np_(model(z))
    assert y.shape == (B, T, 3) and y.min() >= 0.0
    model.save(tmp_path / "self.keras")
    np.testing.assert_allclose(np_(keras.models.load_model(tmp_path / "self.keras")(z)), y, atol=1e-6)
    config = layer.get_config()
    assert SelfAttention.from_config(config).get_config() == config


def test_bad_units_raise():
    with pytest.raises(ValueError, match="units"):
        SelfAttention(units=0)
