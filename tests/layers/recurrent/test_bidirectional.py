"""Keras's own `Bidirectional` wraps seqlab's layers: z_t = [z_t^f ; z_t^b]."""

import keras
import numpy as np
import pytest

from seqlab.layers import ESN, GRU, LSTM, SimpleRNN

from ..layer_test import assert_same_as_keras

MASK = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [1, 1, 0, 0, 0]], dtype=bool)  # right-padded


@pytest.mark.parametrize("merge_mode", ["concat", "sum", "mul", "ave", None])
def test_lstm_matches_keras_in_every_merge_mode(merge_mode):
    x = np.random.normal(size=(3, 5, 2)).astype("float32")
    ours = keras.layers.Bidirectional(LSTM(4, return_sequences=True), merge_mode=merge_mode)
    theirs = keras.layers.Bidirectional(keras.layers.LSTM(4, return_sequences=True), merge_mode=merge_mode)
    assert_same_as_keras(ours, theirs, x, MASK)


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (GRU(4, return_state=True), keras.layers.GRU(4, return_state=True)),
        (GRU(4, reset_after=False), keras.layers.GRU(4, reset_after=False)),
        (SimpleRNN(4, return_sequences=True), keras.layers.SimpleRNN(4, return_sequences=True)),
    ],
    ids=["gru_state", "gru_reset_before", "simple_rnn"],
)
def test_gru_and_simple_rnn_match_keras(ours, theirs):
    x = np.random.normal(size=(3, 5, 2)).astype("float32")
    assert_same_as_keras(keras.layers.Bidirectional(ours), keras.layers.Bidirectional(theirs), x, MASK)


def test_backward_copy_comes_from_the_config():
    bidirectional = keras.layers.Bidirectional(LSTM(3, variant="no_forget_gate", return_sequences=True))
    forward, backward = bidirectional.forward_layer, bidirectional.backward_layer
    assert type(backward) is LSTM and backward.go_backwards and not forward.go_backwards
    assert backward.variant == "no_forget_gate"
    revived = keras.layers.Bidirectional.from_config(bidirectional.get_config())
    assert revived.backward_layer.get_config()["variant"] == "no_forget_gate"


def test_stacked_bidirectional_model_saves_and_reloads(tmp_path):
    inputs = keras.Input((5, 2))
    h = keras.layers.Bidirectional(LSTM(4, return_sequences=True))(inputs)
    h = keras.layers.Bidirectional(GRU(3, return_sequences=True), merge_mode="sum")(h)
    h = keras.layers.Bidirectional(SimpleRNN(2))(h)
    outputs = keras.layers.Dense(1)(h)
    model = keras.Model(inputs, outputs)
    x = np.random.normal(size=(2, 5, 2)).astype("float32")
    model.compile(optimizer="sgd", loss="mse")
    model.train_on_batch(x, np.zeros((2, 1)))
    path = tmp_path / "stacked.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict_on_batch(x), model.predict_on_batch(x), atol=1e-6)


def test_bidirectional_reservoir():
    bidirectional = keras.layers.Bidirectional(ESN(6, connectivity=0.5, seed=3))
    assert tuple(bidirectional(np.ones((2, 5, 1), dtype="float32")).shape) == (2, 5, 12)
    assert bidirectional.trainable_weights == []
