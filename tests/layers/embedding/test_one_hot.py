import numpy as np
import pytest

from seqlab.layers.embedding import OneHot

from ..layer_test import run_layer_test

IDS = np.array([[0, 3, 1], [2, 2, 4]])


def test_layer_contract(tmp_path):
    run_layer_test(
        OneHot, {"vocabulary_size": 5}, input_shape=IDS.shape, expected_output_shape=(2, 3, 5), tmp_path=tmp_path,
        expected_num_trainable_weights=0, input_data=IDS, run_training_check=False,
    )  # fmt: skip


def test_word_i_is_neuron_i_active_and_all_others_silent():
    x = np.asarray(OneHot(5)(IDS))
    np.testing.assert_array_equal(x, np.eye(5)[IDS])


def test_an_id_outside_the_vocabulary_is_the_zero_vector():
    np.testing.assert_array_equal(np.asarray(OneHot(3)(np.array([[3, -1]]))), np.zeros((1, 2, 3)))


@pytest.mark.parametrize("size", [0, -2, 2.5, True, None])
def test_the_vocabulary_size_must_be_a_positive_integer(size):
    with pytest.raises(ValueError, match=r"`vocabulary_size` must be a positive integer. Received: vocabulary_size="):
        OneHot(size)
