import keras
import numpy as np
import pytest

from seqlab.layers.embedding import LearnedEmbedding, OneHot

from ..layer_test import run_layer_test

IDS = np.array([[0, 3, 1, 4], [2, 2, 4, 0]])


def test_layer_contract(tmp_path):
    run_layer_test(
        LearnedEmbedding, {"vocabulary_size": 5, "output_dim": 3}, input_shape=IDS.shape,
        expected_output_shape=(2, 4, 3), tmp_path=tmp_path, expected_num_trainable_weights=1,
        expected_num_non_trainable_weights=0, input_data=IDS,
    )  # fmt: skip


def test_equals_keras_embedding_given_the_same_matrix():
    ours = LearnedEmbedding(5, 3, mask_zero=True)
    theirs = keras.layers.Embedding(5, 3, mask_zero=True)
    ours.build(IDS.shape)
    theirs.build(IDS.shape)
    matrix = np.random.default_rng(0).normal(size=(5, 3)).astype("float32")
    ours.set_weights([matrix])
    theirs.set_weights([matrix])
    np.testing.assert_array_equal(np.asarray(ours(IDS)), np.asarray(theirs(IDS)))
    np.testing.assert_array_equal(np.asarray(ours.compute_mask(IDS)), np.asarray(theirs.compute_mask(IDS)))


def test_the_look_up_is_one_hot_times_A():
    C = LearnedEmbedding(5, 3)
    C.build(IDS.shape)
    A = np.asarray(C.A)
    assert A.shape == (3, 5)
    literal = np.einsum("rv,btv->btr", A, np.asarray(OneHot(5)(IDS)))  # a_i = A x_t for every position
    np.testing.assert_allclose(np.asarray(C(IDS)), literal, atol=1e-7)
    np.testing.assert_allclose(np.asarray(C.one_hot_product(IDS)), literal, atol=1e-7)
    np.testing.assert_array_equal(C.embedding_matrix, A.T)


def test_V_equals_V_tilde_A_so_one_hot_input_gives_the_same_hidden_layer():
    C = LearnedEmbedding(5, 3)
    C.build(None)
    V_tilde = np.random.default_rng(1).normal(size=(4, 3)).astype("float32")  # H x r
    V = V_tilde @ np.asarray(C.A)  # H x N_words
    x = np.asarray(OneHot(5)(IDS))
    np.testing.assert_allclose(np.asarray(C(IDS)) @ V_tilde.T, x @ V.T, atol=1e-6)


def test_without_mask_zero_there_is_no_mask():
    assert LearnedEmbedding(5, 3).compute_mask(IDS) is None


@pytest.mark.parametrize("name", ["vocabulary_size", "output_dim"])
def test_sizes_must_be_positive_integers(name):
    sizes = {"vocabulary_size": 5, "output_dim": 3, name: 0}
    with pytest.raises(ValueError, match=rf"`{name}` must be a positive integer. Received: {name}=0"):
        LearnedEmbedding(**sizes)
