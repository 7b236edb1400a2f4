import keras
import numpy as np
import pytest

from seqlab.layers import SimpleRNN, SimpleRNNCell

from ..layer_test import assert_dropout_only_while_training, assert_same_as_keras, run_layer_test

MASK = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [0, 1, 1, 1, 0]], dtype=bool)


def test_layer_contract(tmp_path):
    run_layer_test(
        SimpleRNN,
        {"units": 4, "return_sequences": True},
        input_shape=(2, 5, 3),
        expected_output_shape=(2, 5, 4),
        tmp_path=tmp_path,
        expected_num_trainable_weights=3,
        expected_num_non_trainable_weights=0,
    )


@pytest.mark.parametrize("direction", ["seqlab_to_keras", "keras_to_seqlab"])
@pytest.mark.parametrize("activation", ["tanh", "relu", "sigmoid"])
@pytest.mark.parametrize("zero_output_for_mask", [False, True])
def test_matches_keras(direction, activation, zero_output_for_mask):
    options = dict(
        activation=activation,
        return_sequences=True,
        return_state=True,
        zero_output_for_mask=zero_output_for_mask,
    )
    x = np.random.normal(size=(3, 5, 2)).astype("float32")
    assert_same_as_keras(SimpleRNN(4, **options), keras.layers.SimpleRNN(4, **options), x, MASK, direction)


def test_numpy_reference_from_the_notes():
    """z_t = sig(B z_{t-1} + V x_t + b), with the notes' V and B."""
    layer = SimpleRNN(3, return_sequences=True, bias_initializer="random_normal")
    x = np.random.normal(size=(2, 4, 2)).astype("float32")
    outputs = keras.ops.convert_to_numpy(layer(x))
    V, B, b = (keras.ops.convert_to_numpy(m) for m in (layer.cell.V, layer.cell.B, layer.cell.b))
    assert V.shape == (3, 2) and B.shape == (3, 3)
    z = np.zeros((2, 3))
    for t in range(4):
        z = np.tanh(z @ B.T + x[:, t] @ V.T + b)
        np.testing.assert_allclose(outputs[:, t], z, atol=1e-5)


def test_step_internals_trace_the_layer():
    """Looping `cell.step` by hand is the layer's own computation."""
    layer = SimpleRNN(3, return_sequences=True)
    x = np.random.normal(size=(2, 4, 2)).astype("float32")
    outputs = keras.ops.convert_to_numpy(layer(x))
    cell = layer.cell
    states = cell.get_initial_state(batch_size=2)
    for t in range(4):
        h, states, internals = cell.step(x[:, t], states)
        assert tuple(internals) == SimpleRNNCell.internal_names
        np.testing.assert_allclose(keras.ops.convert_to_numpy(internals["h"]), outputs[:, t], atol=1e-6)
        pre = keras.ops.convert_to_numpy(internals["pre_activation"])
        np.testing.assert_allclose(np.tanh(pre), outputs[:, t], atol=1e-6)


def test_irnn_identity_initialisation():
    layer = SimpleRNN(5, activation="relu", recurrent_initializer="identity")
    layer.build((None, 3, 2))
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(layer.cell.B), np.eye(5))


def test_dropout_only_while_training():
    assert_dropout_only_while_training(SimpleRNN(8, dropout=0.5, recurrent_dropout=0.5, seed=1))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"units": 0}, "units"),
        ({"units": -2}, "units"),
        ({"units": 2.5}, "units"),
        ({"units": 3, "activation": "tanhh"}, "activation"),
        ({"units": 3, "dropout": 1.0}, "dropout"),
        ({"units": 3, "recurrent_dropout": -0.1}, "recurrent_dropout"),
    ],
)
def test_argument_errors_name_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SimpleRNN(**kwargs)


def test_wrong_rank_is_a_clear_error():
    with pytest.raises(ValueError, match="expected ndim=3"):
        SimpleRNN(3)(np.zeros((2, 3), dtype="float32"))
    with pytest.raises(ValueError, match=r"one time step of shape \(batch, features\)"):
        SimpleRNNCell(3).build((2, 5, 3))
