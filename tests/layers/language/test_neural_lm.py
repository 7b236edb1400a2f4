import keras
import numpy as np
import pytest

from seqlab.layers.language import NeuralLanguageModel
from tests.compiled import compiled

from ..layer_test import run_layer_test

V, T = 6, 3
TEXT = np.array([1, 2, 3, 4, 5] * 12)  # a tiny corpus whose next token follows from the last one
WINDOWS = np.stack([TEXT[i : i + T] for i in range(len(TEXT) - T)])  # (N, T), oldest first
NEXT = TEXT[T:]  # (N,)


def model(**options):
    ids = keras.Input(shape=(T,), dtype="int32")
    return keras.Model(ids, NeuralLanguageModel(V, T, embedding_dim=4, units=8, **options)(ids))


def test_layer_contract(tmp_path):
    run_layer_test(
        NeuralLanguageModel, {"vocabulary_size": V, "context_length": T, "embedding_dim": 4, "units": 8},
        input_shape=(5, T), expected_output_shape=(5, V), tmp_path=tmp_path, expected_num_trainable_weights=5,
        input_data=WINDOWS[:5],
    )  # fmt: skip


def test_outputs_are_next_token_probabilities():
    probabilities = np.asarray(model()(WINDOWS))
    assert probabilities.shape == (len(WINDOWS), V)
    assert (probabilities > 0).all()
    np.testing.assert_allclose(probabilities.sum(axis=-1), 1.0, atol=1e-6)


def test_logits_are_f_w_before_the_softmax():
    lm = model(return_logits=True)
    logits = np.asarray(lm(WINDOWS[:4]))
    layer = lm.layers[-1]
    a = np.asarray(layer.A).T[WINDOWS[:4]][:, ::-1].reshape(4, -1)  # [a_{i(t-1)}; ...; a_{i(t-T)}]
    z = np.tanh(a @ np.asarray(layer.V_tilde).T + np.asarray(layer.hidden.bias))
    np.testing.assert_allclose(logits, z @ np.asarray(layer.W).T + np.asarray(layer.readout.bias), atol=1e-5)
    assert layer.embedding_matrix.shape == (V, 4) and layer.V_tilde.shape == (8, T * 4)


def test_a_tiny_corpus_is_learned_in_a_few_steps():
    lm = model()
    compiled(lm, keras.optimizers.Adam(0.05), "sparse_categorical_crossentropy")
    history = lm.fit(WINDOWS, NEXT, epochs=30, batch_size=len(WINDOWS), verbose=0).history["loss"]
    assert history[-1] < 0.2 * history[0]
    np.testing.assert_array_equal(np.asarray(lm(WINDOWS)).argmax(axis=-1), NEXT)


def test_save_and_load_give_the_same_probabilities(tmp_path):
    lm = model()
    lm.save(tmp_path / "lm.keras")
    loaded = keras.models.load_model(tmp_path / "lm.keras")
    np.testing.assert_allclose(np.asarray(loaded(WINDOWS)), np.asarray(lm(WINDOWS)), atol=1e-7)
    assert loaded.layers[-1].get_config() == lm.layers[-1].get_config()


def test_a_window_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match=r"windows of shape \(batch, 3\) token ids; received input_shape=\(None, 4\)"):
        NeuralLanguageModel(V, T)(keras.Input(shape=(4,), dtype="int32"))
    with pytest.raises(ValueError, match="`context_length` must be a positive integer"):
        NeuralLanguageModel(V, 0)
