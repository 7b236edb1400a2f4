"""The HMM probe: trace() records the layer's own posteriors, Viterbi path and log-likelihood."""

import keras
import numpy as np
import pytest

from seqlab.inspect import HMMTrace, LayerResult, trace
from seqlab.layers.docs import equations
from seqlab.layers.markov import HMM
from seqlab.models.hmm_next_token import HMMNextToken

K, V, T = 3, 6, 9


def random_parameters(seed=0):
    rng = np.random.default_rng(seed)
    rows = lambda shape: (lambda m: m / m.sum(axis=-1, keepdims=True))(rng.random(shape) + 0.05)  # noqa: E731
    return rows(K), rows((K, K)), rows((K, V))


@pytest.fixture
def ids():
    return np.random.default_rng(1).integers(0, V, size=T).astype("int32")


def next_token_model():
    tokens = keras.Input((T,), dtype="int32", name="tokens")
    layer = HMMNextToken(K, V, name="hmm_next_token")
    model = keras.Model(tokens, layer(tokens))
    layer.hmm.set_parameters(*random_parameters())
    return model, layer.hmm


def test_next_token_hmm_posteriors_path_and_likelihood_are_the_layers_own(ids):
    model, hmm = next_token_model()
    tr = trace(model, ids, time_labels=list("abcdefghi"))
    [result] = tr.layers
    assert isinstance(result, HMMTrace) and isinstance(result, LayerResult) and tr.cells == []
    assert result.kind == "HMM" and result.name == "hmm_next_token" and result.time_labels == list("abcdefghi")
    gamma = result.arrays["gamma"]
    assert gamma.shape == (K, T) and result.axes["gamma"] == ("state", "time")
    np.testing.assert_allclose(gamma.sum(axis=0), np.ones(T), atol=1e-9)  # a distribution at every step
    np.testing.assert_allclose(gamma, np.asarray(hmm.posterior(ids[None]))[0].T, atol=1e-12)
    path, log_prob = hmm.viterbi(ids[None])
    np.testing.assert_array_equal(result.arrays["path"], np.asarray(path)[0])
    assert result.path_log_prob == pytest.approx(float(np.asarray(log_prob)[0]))
    assert result.log_likelihood == pytest.approx(float(np.asarray(hmm(ids[None]))[0]))
    assert result.log_likelihood > result.path_log_prob  # p(x) sums over every path, the Viterbi one among them
    np.testing.assert_allclose(result.arrays["A"], hmm.A)
    np.testing.assert_allclose(result.arrays["B"], hmm.B)
    # The model's output is unchanged by the probe, and the equations are the HMM's (then the reader's).
    np.testing.assert_allclose(tr.outputs, np.asarray(model(ids[None]))[0], atol=1e-6)
    assert result.equations[: len(equations(HMM))] == equations(HMM)
    assert any(r"\alpha_n(k)" in block for block in result.equations)


def test_a_plain_hmm_layer_with_a_mask_is_traced_too(ids):
    tokens = keras.Input((T,), dtype="int32")
    hmm = HMM(K, V, name="hmm")
    model = keras.Model(tokens, hmm(tokens))
    hmm.set_parameters(*random_parameters(2))
    tr = trace(model, ids)
    [result] = tr.of(HMMTrace)
    assert tr.outputs == pytest.approx(result.log_likelihood)  # an HMM's output is its log p(x)
    assert result.top_tokens(2).tolist() == np.argsort(-hmm.B.max(axis=0), kind="stable")[:2].tolist()
    # A text shorter than the model's window is read as it is: the same as the layer on those ids.
    short = trace(model, ids[:4]).layers[0]
    np.testing.assert_allclose(short.arrays["gamma"], np.asarray(hmm.posterior(ids[None, :4]))[0].T, atol=1e-12)


def test_token_inputs_are_checked(ids):
    model, _ = next_token_model()
    with pytest.raises(ValueError, match="token ids"):
        trace(model, np.zeros((T, 2), "float32"))
    with pytest.raises(ValueError, match="at most 9"):
        trace(model, np.zeros(T + 1, "int32"))


def test_a_saved_hmm_model_is_listed_as_traced_but_not_recurrent(tmp_path):
    from seqlab.inspect import saved_recurrent_layers, saved_traced_layers

    model, _ = next_token_model()
    model.save(tmp_path / "hmm.keras")
    assert saved_traced_layers(tmp_path / "hmm.keras") == ["hmm_next_token"]
    assert saved_recurrent_layers(tmp_path / "hmm.keras") == []
