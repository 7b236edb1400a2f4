"""One function finds the embedding matrix of every family; cosine neighbours; which rows to show; the PCA."""

import keras
import numpy as np
import pytest

from seqlab.inspect import pca
from seqlab.inspect.embeddings import (
    cosine_neighbours,
    embedding_matrices,
    embedding_matrix,
    saved_embedding_layers,
    shown_tokens,
)
from seqlab.layers.embedding import GivenEmbedding, LearnedEmbedding, OneHot
from seqlab.layers.language import NeuralLanguageModel

V, R, T = 12, 4, 5


def _model(layer, name="m"):
    ids = keras.Input((T,), dtype="int32")
    return keras.Model(ids, keras.layers.Dense(2)(layer(ids)), name=name)


def test_keras_embedding_is_encoding_c_and_its_weights():
    model = _model(keras.layers.Embedding(V, R, name="embedding"))
    found = embedding_matrix(model)
    assert (found.layer, found.kind, found.encoding) == ("embedding", "Embedding", "C")
    np.testing.assert_array_equal(found.matrix, keras.ops.convert_to_numpy(model.get_layer("embedding").embeddings))
    assert found.equations, "the learned encoding's equations, from LearnedEmbedding's docstring"


def test_learned_given_and_one_hot_are_c_b_and_a():
    vectors = np.arange(V * R, dtype="float32").reshape(V, R)
    learned = _model(LearnedEmbedding(V, R, name="c"))
    assert embedding_matrix(learned).encoding == "C"
    np.testing.assert_array_equal(embedding_matrix(learned).matrix, learned.get_layer("c").get_weights()[0])
    given = embedding_matrix(_model(GivenEmbedding(vectors, name="b")))
    assert given.encoding == "B" and given.kind == "GivenEmbedding"
    np.testing.assert_array_equal(given.matrix, vectors)
    one_hot = embedding_matrix(_model(OneHot(V, name="a")))
    assert one_hot.encoding == "A"
    np.testing.assert_array_equal(one_hot.matrix, np.eye(V))  # token i is the i-th unit vector


def test_the_neural_language_model_inside_time_distributed_is_found():
    ids = keras.Input((T, 3), dtype="int32")
    lm = NeuralLanguageModel(V, 3, embedding_dim=R, units=4, name="neural_lm")
    model = keras.Model(ids, keras.layers.TimeDistributed(lm, name="next_token")(ids))
    [found] = embedding_matrices(model)
    assert (found.layer, found.kind, found.encoding) == ("next_token / neural_lm", "NeuralLanguageModel", "C")
    np.testing.assert_array_equal(found.matrix, keras.ops.convert_to_numpy(lm.embedding.embeddings))


def test_a_model_without_embedding_is_a_clear_error():
    ids = keras.Input((T, 1))
    model = keras.Model(ids, keras.layers.Dense(1)(ids), name="plain")
    assert embedding_matrices(model) == []
    with pytest.raises(ValueError, match="'plain' has no embedding layer"):
        embedding_matrix(model)


def test_saved_layers_are_read_without_loading(tmp_path):
    ids = keras.Input((T, 3), dtype="int32")
    lm = NeuralLanguageModel(V, 3, embedding_dim=R, units=4, name="neural_lm")
    keras.Model(ids, keras.layers.TimeDistributed(lm, name="next_token")(ids)).save(tmp_path / "lm.keras")
    assert saved_embedding_layers(tmp_path / "lm.keras") == ["next_token / neural_lm"]
    _model(keras.layers.Embedding(V, R, name="embedding")).save(tmp_path / "rnn.keras")
    assert saved_embedding_layers(tmp_path / "rnn.keras") == ["embedding"]
    plain = keras.Input((T, 1))
    keras.Model(plain, keras.layers.Dense(1)(plain)).save(tmp_path / "plain.keras")
    assert saved_embedding_layers(tmp_path / "plain.keras") == []


def test_cosine_neighbours_start_with_the_token_and_are_sorted():
    a = np.random.default_rng(0).normal(size=(30, 6))
    a[7] = 3 * a[3]  # the same direction, another length: cosine 1
    ids, cosines = cosine_neighbours(a, 3, k=10)
    assert ids[0] == 3 and cosines[0] == 1.0
    assert ids[1] == 7 and cosines[1] == pytest.approx(1.0)
    assert np.all(np.diff(cosines) <= 1e-12) and len(set(ids)) == 10
    unit = a / np.linalg.norm(a, axis=1, keepdims=True)
    np.testing.assert_allclose(cosines, unit[ids] @ unit[3])
    everyone, _ = cosine_neighbours(a, 0, k=100)
    assert sorted(everyone) == list(range(30))


def test_zero_vectors_and_bad_ids_are_clear_errors():
    a = np.eye(4)
    a[2] = 0.0
    ids, cosines = cosine_neighbours(a, 0, k=4)
    assert cosines[list(ids).index(2)] == 0.0  # no direction: cosine 0, not nan
    with pytest.raises(ValueError, match="zero vector"):
        cosine_neighbours(a, 2)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        cosine_neighbours(a, 4)


def test_shown_tokens_caps_most_frequent_first_else_id_order():
    counts = np.array([0, 5, 9, 5, 1])
    assert shown_tokens(5, 3, counts).tolist() == [2, 1, 3]  # ties in id order
    assert shown_tokens(5, 3).tolist() == [0, 1, 2]
    assert shown_tokens(5, 99, counts).tolist() == [2, 1, 3, 4, 0]
    with pytest.raises(ValueError, match="at least 1"):
        shown_tokens(5, 0)


def test_pca_of_the_capped_rows():
    a = np.random.default_rng(1).normal(size=(40, 8))
    shown = shown_tokens(40, 25)
    for dims in (2, 3):
        projection = pca(a, components=dims)
        assert projection.points[shown].shape == (25, dims)
        assert projection.explained.shape == (dims,) and 0 < projection.explained.sum() <= 1


@pytest.mark.parametrize("model, options", [
    ("transformer_seq2seq", {"layers": 1, "heads": 2, "width": 8, "ff_units": 8}),
    ("seq2seq", {"units": 4, "embedding_dim": 4}),
])
def test_a_decoders_own_embedding_is_found_after_the_source_one(model, options):
    # The decoder layers keep their embedding as an attribute (the Transformer's ``layers`` is a count of blocks).
    from seqlab.data import load_dataset
    from seqlab.models import build_model

    data = load_dataset("toy_pairs", samples=60)
    found = embedding_matrices(build_model(model, data, options))
    assert [f.layer.rsplit(" / ", 1)[-1] for f in found] == ["source_embedding", "target_embedding"]
    assert [len(f.matrix) for f in found] == [data.tokenizer.vocab_size, data.target_tokenizer.vocab_size]
