import keras
import numpy as np
import pytest

from seqlab.layers.embedding import GivenEmbedding

from ..layer_test import run_layer_test

VECTORS = np.arange(15, dtype="float32").reshape(5, 3) / 10
IDS = np.array([[0, 3, 1], [2, 2, 4]])


def test_layer_contract_and_the_vectors_never_train(tmp_path):
    layer = run_layer_test(
        GivenEmbedding, {"vectors": VECTORS}, input_shape=IDS.shape, expected_output_shape=(2, 3, 3),
        tmp_path=tmp_path, expected_num_trainable_weights=0, expected_num_non_trainable_weights=1,
        input_data=IDS, run_training_check=False,
    )  # fmt: skip
    np.testing.assert_array_equal(np.asarray(layer(IDS)), VECTORS[IDS])


def test_only_the_next_layer_trains():
    ids = keras.Input(shape=(3,), dtype="int32")
    B = GivenEmbedding(VECTORS)
    model = keras.Model(ids, keras.layers.Dense(1)(keras.layers.Flatten()(B(ids))))
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    model.train_on_batch(IDS, np.ones((2, 1)))
    np.testing.assert_array_equal(B.embedding_matrix, VECTORS)
    assert len(model.trainable_weights) == 2  # V~ and its bias


def test_from_glove_reads_the_vectors_in_vocabulary_order():
    glove = b"cat 1 2 3\nthe 0.5 0.5 0.5\ndog -1 -2 -3\n"
    B = GivenEmbedding.from_glove(glove, ["[PAD]", "dog", "cat"], mask_zero=True)
    B.build(None)
    np.testing.assert_array_equal(B.embedding_matrix, [[0, 0, 0], [-1, -2, -3], [1, 2, 3]])
    assert B.note.startswith("1 of 3 vocabulary tokens") and "'[PAD]'" in B.note
    assert B.mask_zero


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"vectors": np.zeros(3)}, r"matrix of shape \(vocabulary_size, output_dim\)"),
        ({"vectors": [[1.0, np.nan]]}, "finite numbers only"),
        ({"vectors": VECTORS, "output_dim": 4}, r"`output_dim` \(4\) disagrees"),
        ({}, "needs `vectors`"),
        ({"vectors": VECTORS, "trainable": True}, "keeps its vectors fixed"),
    ],
)
def test_bad_arguments_are_refused_clearly(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GivenEmbedding(**kwargs)
