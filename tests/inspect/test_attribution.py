"""Per-token contributions: integrated gradients add up to p(x) - p(0), occlusion is the drop with one token
unknown, a forward tagger's tag owes nothing to later tokens, and bad arguments are refused clearly."""

import keras
import numpy as np
import pytest

from seqlab.inspect import sentence_probabilities, token_attribution
from seqlab.layers import MaskedGlobalMaxPooling1D, ParallelConv1D
from seqlab.text import UNK_ID

LENGTH, VOCAB, CLASSES = 7, 12, 3
SENTENCE = np.array([4, 7, 2, 9, 5])


def classifier(body) -> keras.Model:
    """Token ids -> Embedding (padding masked) -> ``body`` -> softmax over three classes."""
    keras.utils.set_random_seed(3)
    ids = keras.Input((LENGTH,), dtype="int32")
    x = keras.layers.Embedding(VOCAB, 5, mask_zero=True)(ids)
    x = body(x)
    return keras.Model(ids, keras.layers.Dense(CLASSES, activation="softmax")(x))


def tagger(bidirectional: bool) -> keras.Model:
    keras.utils.set_random_seed(3)
    ids = keras.Input((LENGTH,), dtype="int32")
    x = keras.layers.Embedding(VOCAB, 5, mask_zero=True)(ids)
    gru = keras.layers.GRU(4, return_sequences=True)
    x = (keras.layers.Bidirectional(gru) if bidirectional else gru)(x)
    return keras.Model(ids, keras.layers.Dense(CLASSES, activation="softmax")(x))


BODIES = {
    "gru": lambda: keras.layers.GRU(6),
    "mean": lambda: keras.layers.GlobalAveragePooling1D(),
    "cnn": lambda: lambda x: MaskedGlobalMaxPooling1D()(ParallelConv1D(3, widths=(2, 3))(x)),
}


@pytest.mark.parametrize("body", sorted(BODIES))
def test_integrated_gradients_add_up_to_the_change_in_probability(body):
    model = classifier(BODIES[body]())
    a = token_attribution(model, SENTENCE, target=1, steps=64)
    padded = np.zeros((1, LENGTH), "int32")
    padded[0, : len(SENTENCE)] = SENTENCE
    assert a.probability == pytest.approx(float(model.predict(padded, verbose=0)[0, 1]), abs=1e-6)
    assert a.scores.shape == (len(SENTENCE),) and np.abs(a.scores).max() > 0
    assert a.scores.sum() == pytest.approx(a.probability - a.reference, abs=2e-4)  # completeness
    assert a.gap == pytest.approx(a.scores.sum() - (a.probability - a.reference))


def test_integrated_gradients_of_a_mean_of_embeddings_into_a_linear_logit_is_exact_in_the_logit():
    # F linear in the embeddings: the path integral is exact at any number of steps (here for one class of two,
    # through the sigmoid-free identity head), and each token's share is e_t . grad.
    keras.utils.set_random_seed(0)
    ids = keras.Input((LENGTH,), dtype="int32")
    x = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(VOCAB, 3, mask_zero=True)(ids))
    model = keras.Model(ids, keras.layers.Dense(2)(x))
    a = token_attribution(model, SENTENCE, target=0, steps=1)
    embeddings = model.layers[1].get_weights()[0][SENTENCE]  # (T, 3)
    weights = model.layers[-1].get_weights()[0][:, 0]
    np.testing.assert_allclose(a.scores, embeddings @ weights / len(SENTENCE), rtol=1e-5, atol=1e-7)
    assert a.gap == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("body", sorted(BODIES))
def test_occlusion_is_the_drop_when_one_token_is_unknown(body):
    model = classifier(BODIES[body]())
    a = token_attribution(model, SENTENCE, target=2, method="occlusion")
    p = sentence_probabilities(model, SENTENCE)[2]
    for t in range(len(SENTENCE)):
        hidden = SENTENCE.copy()
        hidden[t] = UNK_ID
        assert a.scores[t] == pytest.approx(p - sentence_probabilities(model, hidden)[2], abs=1e-6)
    assert a.reference is None and a.gap is None


@pytest.mark.parametrize("method", ["integrated gradients", "occlusion"])
def test_a_forward_tagger_owes_nothing_to_later_tokens_a_bidirectional_one_does(method):
    j = 2
    forward = token_attribution(tagger(False), SENTENCE, target=0, method=method, position=j)
    both = token_attribution(tagger(True), SENTENCE, target=0, method=method, position=j)
    assert forward.position == j
    assert (forward.scores[j + 1:] == 0).all() and (forward.scores[: j + 1] != 0).any()
    assert (both.scores[j + 1:] != 0).all()


def test_sentence_probabilities_leave_the_padding_out():
    assert sentence_probabilities(tagger(False), SENTENCE).shape == (len(SENTENCE), CLASSES)
    p = sentence_probabilities(classifier(BODIES["gru"]()), SENTENCE)
    assert p.shape == (CLASSES,) and p.sum() == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("kwargs, message", [
    ({"method": "saliency"}, "Unknown attribution method"),
    ({"ids": []}, "one sentence of token ids"),
    ({"ids": [3, 0, 4]}, "token ids > 0"),
    ({"ids": list(range(1, LENGTH + 2))}, "reads at most 7"),
    ({"target": 3}, "class id in 0 .. 2"),
    ({"steps": 0}, "steps must be at least 1"),
])
def test_bad_arguments_are_refused_with_a_reason(kwargs, message):
    model = classifier(BODIES["mean"]())
    arguments = {"ids": SENTENCE, "target": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        token_attribution(model, **arguments)


def test_a_tagger_needs_the_position_and_a_numeric_model_is_refused():
    with pytest.raises(ValueError, match="position must be in 0 .. 4"):
        token_attribution(tagger(False), SENTENCE, target=0)
    inputs = keras.Input((LENGTH, 2))
    numeric = keras.Model(inputs, keras.layers.Dense(2, activation="softmax")(keras.layers.GRU(2)(inputs)))
    with pytest.raises(ValueError, match="reads token ids"):
        token_attribution(numeric, SENTENCE, target=0)


def test_integrated_gradients_need_an_embedding_occlusion_does_not():
    ids = keras.Input((LENGTH,), dtype="int32")
    x = keras.layers.CategoryEncoding(VOCAB, output_mode="count")(ids)
    model = keras.Model(ids, keras.layers.Dense(2, activation="softmax")(x))
    with pytest.raises(ValueError, match="no Embedding layer. Use occlusion"):
        token_attribution(model, SENTENCE, target=0)
    assert token_attribution(model, SENTENCE, target=0, method="occlusion").scores.shape == (len(SENTENCE),)


def test_integrated_gradients_refuse_a_model_that_changes_its_tokens_before_the_embedding():
    # As BERT's classifier, which maps the ids and adds [CLS] and [SEP]: the embedding's positions are not the
    # sentence's tokens, so the contributions could not be laid on them.
    ids = keras.Input((LENGTH,), dtype="int32")
    shifted = keras.layers.Lambda(lambda t: keras.ops.pad(t, [[0, 0], [1, 0]], constant_values=2))(ids)
    x = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(VOCAB, 5)(shifted))
    model = keras.Model(ids, keras.layers.Dense(2, activation="softmax")(x))
    with pytest.raises(ValueError, match="changes its tokens before embedding them. Use occlusion"):
        token_attribution(model, SENTENCE, target=0)
    assert token_attribution(model, SENTENCE, target=0, method="occlusion").scores.shape == (len(SENTENCE),)
