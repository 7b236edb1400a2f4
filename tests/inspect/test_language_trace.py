"""A recurrent language model traced over text: tokens label the steps, the outputs are the model's."""

import keras
import numpy as np

from seqlab.inspect import LayerTrace, gradient_through_time, trace
from seqlab.layers import LSTM
from seqlab.text import CharTokenizer

T = 10
TEXT = "the cat sat on the mat"


def language_model(vocab_size):
    tokens = keras.Input((T,), dtype="int32", name="tokens")
    x = keras.layers.Embedding(vocab_size, 4, name="embedding")(tokens)
    x = LSTM(5, return_sequences=True, name="lstm_1")(x)
    return keras.Model(tokens, keras.layers.Dense(vocab_size, activation="softmax", name="next_token")(x))


def test_tokens_label_the_steps_and_the_outputs_are_the_models():
    tokenizer = CharTokenizer().fit(TEXT)
    model = language_model(tokenizer.vocab_size)
    ids = np.asarray(tokenizer.encode(TEXT[:T]), dtype="int32")
    labels = tokenizer.tokens(TEXT[:T])
    tr = trace(model, ids, time_labels=labels)
    [layer] = tr.layers
    assert isinstance(layer, LayerTrace) and layer.time_labels == labels == list("the cat sa")
    assert layer.arrays["h"].shape == (T, 5) and layer.inputs.shape == (T, 4)  # it read the embeddings
    np.testing.assert_array_equal(tr.inputs, ids)
    np.testing.assert_allclose(tr.outputs, np.asarray(model(ids[None]))[0], atol=1e-5)  # (T, V)
    # A shorter text is traced as it is; causal, so its steps are the full window's first steps.
    short = trace(model, ids[:4], time_labels=labels[:4])
    np.testing.assert_allclose(short.outputs, tr.outputs[:4], atol=1e-5)
    np.testing.assert_allclose(short.layers[0].arrays["h"], layer.arrays["h"][:4], atol=1e-5)


def test_gradient_through_time_with_the_language_loss():
    tokenizer = CharTokenizer().fit(TEXT)
    model = language_model(tokenizer.vocab_size)
    ids = np.asarray(tokenizer.encode(TEXT[: T + 1]), dtype="int32")
    x, y = ids[:-1], ids[1:]  # predict every next token
    g = gradient_through_time(model, x, y, loss="sparse_categorical_crossentropy")
    [layer] = g.layers
    assert layer.norms.shape == (T,) and np.all(np.isfinite(layer.norms)) and np.all(layer.norms > 0)
    expected = keras.losses.sparse_categorical_crossentropy(y[None], model(x[None]))
    assert abs(g.loss - float(np.mean(np.asarray(expected)))) < 1e-5
