import keras
import numpy as np
import pytest

from seqlab import decoding
from seqlab.layers.markov import MarkovChain

CORPUS = [0, 1, 2, 0, 1, 2, 0, 1]  # unigrams 0:3 1:3 2:2; bigrams (0,1):3 (1,2):2 (2,0):2


def probs(chain, context):
    return np.exp(keras.ops.convert_to_numpy(chain(np.array([context]))))[0]  # (time, V)


def test_counts_and_probabilities_match_a_hand_computation():
    chain = MarkovChain(order=2, vocab_size=3, alpha=1.0).fit(CORPUS)
    assert chain.sizes == [3, 3, 3]  # distinct 1-, 2- and 3-grams
    p = probs(chain, [0, 1, 2])
    np.testing.assert_allclose(p[0], np.array([0 + 1, 3 + 1, 0 + 1]) / (3 + 3), rtol=1e-6)  # p(. | 0)
    np.testing.assert_allclose(p[1], np.array([0 + 1, 0 + 1, 2 + 1]) / (2 + 3), rtol=1e-6)  # p(. | 0, 1)
    np.testing.assert_allclose(p[2], np.array([2 + 1, 0 + 1, 0 + 1]) / (2 + 3), rtol=1e-6)  # p(. | 1, 2)
    # p(x_1) p(x_2 | x_1) p(x_3 | x_1, x_2): the first token from the unigram model.
    expected = np.log(np.array([(3 + 1) / (8 + 3), 4 / 6, 3 / 5]))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(chain.token_log_probs(np.array([[0, 1, 2]])))[0],
                               expected, rtol=1e-6)
    total, tokens = chain.log_likelihood([0, 1, 2])
    assert tokens == 3 and total == pytest.approx(expected.sum(), rel=1e-6)
    assert chain.perplexity([0, 1, 2]) == pytest.approx(np.exp(-expected.sum() / 3), rel=1e-6)


def test_maximum_likelihood_without_smoothing():
    chain = MarkovChain(order=1, vocab_size=3, alpha=0.0).fit(CORPUS)
    np.testing.assert_allclose(probs(chain, [1])[0], [0.0, 0.0, 1.0])  # 1 is followed by 2, twice
    assert np.isneginf(keras.ops.convert_to_numpy(chain(np.array([[1]])))[0, 0, 0])


@pytest.mark.parametrize("backoff", [True, False])
@pytest.mark.parametrize("alpha", [0.1, 1.0])
def test_smoothed_distributions_sum_to_one(alpha, backoff):
    rng = np.random.default_rng(0)
    chain = MarkovChain(order=3, vocab_size=7, alpha=alpha, backoff=backoff).fit(rng.integers(0, 5, 300))
    p = np.exp(keras.ops.convert_to_numpy(chain(rng.integers(0, 7, (4, 9)))))  # ids 5, 6 never seen
    np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=1e-5)
    assert np.all(p > 0)


def test_unseen_contexts_back_off_to_shorter_ones():
    chain = MarkovChain(order=2, vocab_size=4, alpha=1.0).fit(CORPUS)
    # (2, 1) never occurs: back off to p(. | 1) = ([0, 0, 2, 0] + 1) / (2 + 4).
    np.testing.assert_allclose(probs(chain, [2, 1])[1], np.array([1, 1, 3, 1]) / 6, rtol=1e-6)
    # Token 3 never occurs: back off to the unigram model (counts + 1) / (8 + 4).
    np.testing.assert_allclose(probs(chain, [3])[0], np.array([4, 4, 3, 1]) / 12, rtol=1e-6)
    plain = MarkovChain(order=2, vocab_size=4, alpha=1.0, backoff=False).fit(CORPUS)
    np.testing.assert_allclose(probs(plain, [2, 1])[1], np.full(4, 0.25), rtol=1e-6)  # unseen: uniform


def test_ngrams_never_span_two_sequences():
    chain = MarkovChain(order=1, vocab_size=4, alpha=1.0).fit([np.array([0, 1]), np.array([2, 3])])
    # 1 is never followed (it ends its sequence): back off to the unigram model, not count (1, 2).
    np.testing.assert_allclose(probs(chain, [1])[0], np.full(4, 0.25), rtol=1e-6)
    np.testing.assert_allclose(probs(chain, [0])[0], np.array([1, 2, 1, 1]) / 5, rtol=1e-6)


def second_order_text(length, rng, vocab=5, noise=0.1):
    """x_n = (x_{n-1} + x_{n-2}) mod V, with a random token instead 10% of the time."""
    x = list(rng.integers(0, vocab, 2))
    for _ in range(length - 2):
        x.append(rng.integers(vocab) if rng.random() < noise else (x[-1] + x[-2]) % vocab)
    return np.array(x)


def test_second_order_beats_first_order_on_second_order_text():
    rng = np.random.default_rng(1)
    train, test = second_order_text(5000, rng), second_order_text(1000, rng)
    first = MarkovChain(order=1, vocab_size=5).fit(train).perplexity(test)
    second = MarkovChain(order=2, vocab_size=5).fit(train).perplexity(test)
    assert second < 1.6 < 4.0 < first  # order 1 knows almost nothing: nearly uniform (5)


def test_sparse_tables_grow_with_the_corpus_not_with_v_to_the_k():
    tokens = np.random.default_rng(2).integers(0, 65, 20_000)
    chain = MarkovChain(order=5, vocab_size=65, alpha=0.01).fit(tokens)
    assert sum(chain.sizes) <= 6 * len(tokens)  # a dense table would hold 65^6 = 7.5e10 cells
    assert chain.perplexity(tokens[:2000]) < 2.0  # seen text: each order-5 context seen about once


def test_next_fn_follows_the_decoding_contract_and_sampling_is_reproducible():
    chain = MarkovChain(order=2, vocab_size=3).fit(CORPUS)
    next_fn = chain.next_fn()
    log_probs, state = next_fn(np.array([[2, 0, 1]]), None)
    np.testing.assert_allclose(np.exp(log_probs[0]), probs(chain, [0, 1])[1], rtol=1e-6)
    np.testing.assert_array_equal(state, [[0, 1]])  # the context, cut to the last k ids
    runs = [decoding.sample(chain.next_fn(), [[0, 1], [2, 0]], max_new_tokens=12, seed=5) for _ in range(2)]
    assert [out.tokens for out in runs[0]] == [out.tokens for out in runs[1]]
    assert all(len(out.tokens) == 12 for out in runs[0])
    [greedy] = decoding.greedy(chain.next_fn(), [[0]], max_new_tokens=4)
    assert greedy.tokens == (1, 2, 0, 1)  # the corpus's cycle


def test_save_and_load_round_trip(tmp_path):
    corpus = [[0, 1, 2, 3, 4, 0, 1, 2], [4, 4, 3, 1, 0, 0, 2, 2]]
    chain = MarkovChain(order=3, vocab_size=5, alpha=0.5, name="chain").fit(corpus)
    inputs = keras.Input((None,), dtype="int64")
    model = keras.Model(inputs, chain(inputs))
    x = np.array([[0, 1, 2, 3, 1], [4, 4, 4, 4, 4]])
    model.save(tmp_path / "chain.keras")
    loaded = keras.models.load_model(tmp_path / "chain.keras")
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(loaded(x)), keras.ops.convert_to_numpy(model(x)))
    revived = loaded.get_layer("chain")
    assert revived.get_config() == chain.get_config() and revived.sizes == chain.sizes
    assert MarkovChain.from_config(chain.get_config()).get_config() == chain.get_config()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"order": 6, "vocab_size": 3}, "order"),
        ({"order": 0, "vocab_size": 3}, "order"),
        ({"order": 2, "vocab_size": 0}, "vocab_size"),
        ({"order": 2, "vocab_size": 3, "alpha": -1.0}, "alpha"),
        ({"order": 2, "vocab_size": 3, "alpha": 0.0, "backoff": False}, "backoff=True"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        MarkovChain(**kwargs)


def test_bad_corpora_and_misuse_are_explained():
    with pytest.raises(ValueError, match="fit"):
        MarkovChain(order=1, vocab_size=3)(np.array([[0, 1]]))
    with pytest.raises(ValueError, match="longer than the context"):
        MarkovChain(order=3, vocab_size=3).fit([0, 1, 2])
    with pytest.raises(ValueError, match="outside the vocabulary"):
        MarkovChain(order=1, vocab_size=3).fit([0, 1, 3])
    with pytest.raises(ValueError, match="integer token ids"):
        MarkovChain(order=1, vocab_size=3).fit([0.0, 1.0])
    chain = MarkovChain(order=1, vocab_size=3).fit(CORPUS)
    with pytest.raises(ValueError, match="already fitted"):
        chain.fit(CORPUS)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        chain.log_prob([[5]])
