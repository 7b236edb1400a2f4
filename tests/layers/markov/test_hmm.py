import itertools

import keras
import numpy as np
import pytest
from hmmlearn.hmm import CategoricalHMM

from seqlab import decoding
from seqlab.layers.markov import HMM
from seqlab.layers.markov.hmm import padded

from ..layer_test import run_layer_test

X = np.array([[0, 2, 1, 1], [2, 2, 0, 1], [1, 0, 0, 2]])  # K=2, V=3, T=4: 16 state paths each


def numpy(tensor):
    return keras.ops.convert_to_numpy(tensor)


def joint(hmm, x, z):
    """p(x, z) = p(z_1) prod p(z_n | z_{n-1}) prod p(x_n | z_n), straight from the notes."""
    p = hmm.pi[z[0]] * hmm.B[z[0], x[0]]
    for n in range(1, len(x)):
        p *= hmm.A[z[n - 1], z[n]] * hmm.B[z[n], x[n]]
    return p


def all_paths(hmm, x):
    paths = list(itertools.product(range(hmm.states), repeat=len(x)))
    return paths, np.array([joint(hmm, x, z) for z in paths])


@pytest.fixture
def hmm():
    model = HMM(states=2, vocab_size=3, seed=4)
    model.build()
    return model


def test_forward_likelihood_is_the_sum_over_all_state_paths(hmm):
    expected = [np.log(all_paths(hmm, x)[1].sum()) for x in X]
    np.testing.assert_allclose(numpy(hmm(X)), expected, rtol=1e-12)


def test_viterbi_is_the_most_probable_path(hmm):
    path, log_prob = hmm.viterbi(X)
    for row, x in enumerate(X):
        paths, p = all_paths(hmm, x)
        assert tuple(numpy(path)[row]) == paths[int(np.argmax(p))]
        assert numpy(log_prob)[row] == pytest.approx(np.log(p.max()), rel=1e-12)


def test_posteriors_are_the_brute_force_marginals_and_sum_to_one(hmm):
    gamma = numpy(hmm.posterior(X))
    np.testing.assert_allclose(gamma.sum(axis=-1), 1.0, rtol=1e-12)
    paths, p = all_paths(hmm, X[0])
    for n in range(X.shape[1]):
        marginal = [p[[z[n] == k for z in paths]].sum() / p.sum() for k in range(2)]
        np.testing.assert_allclose(gamma[0, n], marginal, rtol=1e-10)


def test_padded_sequences_give_their_unpadded_results(hmm):
    sequences = [np.array([0, 2, 1, 1, 2]), np.array([1, 0]), np.array([2])]
    ids, mask = padded(sequences)
    ids[~mask] = 2  # whatever the padding holds is skipped
    likelihood, gamma = numpy(hmm(ids, mask=mask)), numpy(hmm.posterior(ids, mask=mask))
    path, log_prob = (numpy(part) for part in hmm.viterbi(ids, mask=mask))
    for row, sequence in enumerate(sequences):
        alone = sequence[None]
        n = len(sequence)
        assert likelihood[row] == pytest.approx(numpy(hmm(alone))[0], rel=1e-12)
        np.testing.assert_allclose(gamma[row, :n], numpy(hmm.posterior(alone))[0], rtol=1e-10)
        assert np.all(gamma[row, n:] == 0)
        np.testing.assert_array_equal(path[row, :n], numpy(hmm.viterbi(alone)[0])[0])
        assert np.all(path[row, n:] == -1) and log_prob[row] == pytest.approx(numpy(hmm.viterbi(alone)[1])[0])
    # A mask that starts late (left padding) skips the first steps too.
    left = np.array([[1, 1, 0, 2, 1, 1]])
    np.testing.assert_allclose(numpy(hmm(left, mask=(np.arange(6) >= 2)[None])),
                               numpy(hmm(left[:, 2:])), rtol=1e-12)


def test_next_fn_gives_the_chain_rule_of_the_forward_likelihood(hmm):
    next_fn, x = hmm.next_fn(), X[0]
    log_probs, state = next_fn(x[None, :1], None)
    total = np.log(hmm.pi @ hmm.B[:, x[0]])  # p(x_1)
    for token in x[1:]:
        np.testing.assert_allclose(np.exp(log_probs).sum(), 1.0, rtol=1e-12)
        total += log_probs[0, token]
        log_probs, state = next_fn(np.array([[token]]), state)  # one id a step: the state carries the rest
    assert total == pytest.approx(numpy(hmm(x[None]))[0], rel=1e-12)
    assert len(decoding.sample(hmm.next_fn(), [[0, 1]], max_new_tokens=5, seed=0)[0].tokens) == 5


def training_data(seed=0, vocab=4, count=25):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, vocab, rng.integers(5, 40)) for _ in range(count)]


def test_baum_welch_matches_hmmlearn_from_the_same_start():
    # Id 0 never occurs (like [PAD]): its emission probabilities fall to 0 after one M-step, and the
    # padding of the shorter sequences (id 0, masked) must still count for nothing.
    sequences = [s + 1 for s in training_data()]
    hmm = HMM(states=3, vocab_size=5, seed=1)
    hmm.build()
    reference = CategoricalHMM(n_components=3, n_features=5, n_iter=15, tol=-np.inf, init_params="", params="ste")
    reference.startprob_, reference.transmat_, reference.emissionprob_ = hmm.pi, hmm.A, hmm.B
    reference.fit(np.concatenate(sequences)[:, None], [len(s) for s in sequences])
    history = hmm.baum_welch(sequences, iterations=15, tol=None)
    np.testing.assert_allclose(history, list(reference.monitor_.history), rtol=1e-6)
    assert len(history) == 15
    np.testing.assert_allclose(hmm.pi, reference.startprob_, atol=1e-8)
    np.testing.assert_allclose(hmm.A, reference.transmat_, atol=1e-8)
    np.testing.assert_allclose(hmm.B, reference.emissionprob_, atol=1e-8)
    ids, mask = padded(sequences)
    assert float(np.sum(numpy(hmm(ids, mask=mask)))) == pytest.approx(
        reference.score(np.concatenate(sequences)[:, None], [len(s) for s in sequences]), rel=1e-6
    )


def test_baum_welch_never_decreases_the_likelihood_and_stops_at_tol():
    sequences = training_data(seed=3)
    history = HMM(states=4, vocab_size=4, seed=2).baum_welch(sequences, iterations=40, tol=None)
    assert np.all(np.diff(history) >= -1e-9) and history[-1] > history[0] + 1.0
    stopped = HMM(states=4, vocab_size=4, seed=2).baum_welch(sequences, iterations=40, tol=0.1)
    assert len(stopped) < 40 and stopped[-1] - stopped[-2] < 0.1 and np.all(np.diff(stopped[:-1]) >= 0.1)


def test_layer_contract_and_save_load(tmp_path):
    ids = np.random.default_rng(0).integers(0, 5, (2, 6))
    run_layer_test(
        HMM,
        {"states": 3, "vocab_size": 5, "seed": 0},
        input_shape=(2, 6),
        expected_output_shape=(2,),
        tmp_path=tmp_path,
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=3,
        input_data=ids,
        run_training_check=False,  # fitted by Baum-Welch, not by gradients
    )


def test_fitted_parameters_survive_save_and_load(tmp_path):
    hmm = HMM(states=2, vocab_size=4, seed=0, name="hmm")
    hmm.baum_welch(training_data(), iterations=3)
    inputs = keras.Input((None,), dtype="int32")
    model = keras.Model(inputs, hmm(inputs))
    model.save(tmp_path / "hmm.keras")
    loaded = keras.models.load_model(tmp_path / "hmm.keras").get_layer("hmm")
    np.testing.assert_array_equal(loaded.A, hmm.A)
    np.testing.assert_array_equal(loaded.B, hmm.B)
    np.testing.assert_array_equal(numpy(loaded(X)), numpy(hmm(X)))


def test_bad_arguments_are_explained():
    with pytest.raises(ValueError, match="states"):
        HMM(states=0, vocab_size=3)
    with pytest.raises(ValueError, match="seed"):
        HMM(states=2, vocab_size=3, seed=1.5)
    hmm = HMM(states=2, vocab_size=3, seed=0)
    with pytest.raises(ValueError, match=r"`A` must have shape \(2, 2\)"):
        hmm.set_parameters([0.5, 0.5], np.eye(3), np.full((2, 3), 1 / 3))
    with pytest.raises(ValueError, match="rows sum to 1"):
        hmm.set_parameters([0.5, 0.5], [[0.5, 0.6], [0.5, 0.5]], np.full((2, 3), 1 / 3))
    with pytest.raises(ValueError, match="outside the vocabulary"):
        hmm.baum_welch([[0, 1, 3]])
    with pytest.raises(ValueError, match="iterations"):
        hmm.baum_welch([[0, 1]], iterations=0)
