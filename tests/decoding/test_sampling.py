import numpy as np
import pytest
from scipy import stats

from seqlab.decoding import filtered, greedy, keep_top_k, keep_top_p, sample, with_temperature
from tests.decoding.fakes import StatefulHistory, bigram_next, history_next

P = np.array([0.4, 0.25, 0.15, 0.1, 0.06, 0.04])


def fixed_next(tokens, state):
    return np.log(np.tile(P, (len(tokens), 1))), None


def frequencies(draws: int = 20_000, **options) -> np.ndarray:
    found = sample(fixed_next, np.zeros((draws, 1), dtype=int), 1, seed=1, alternatives=0, **options)
    return np.bincount([g.tokens[0] for g in found], minlength=len(P))


@pytest.mark.parametrize(
    "options, expected",
    [
        ({}, P),
        ({"temperature": 0.5}, P**2 / np.sum(P**2)),
        ({"temperature": 2.0}, np.sqrt(P) / np.sum(np.sqrt(P))),
        ({"top_k": 3}, np.r_[P[:3], 0, 0, 0] / P[:3].sum()),
        ({"top_p": 0.75}, np.r_[P[:3], 0, 0, 0] / P[:3].sum()),  # 0.4 + 0.25 < 0.75 <= + 0.15
        ({"top_p": 0.6}, np.r_[P[:2], 0, 0, 0, 0] / P[:2].sum()),
        ({"temperature": 2.0, "top_k": 4, "top_p": 0.7}, None),  # checked against the chain below
    ],
)
def test_draw_frequencies_match_the_filtered_distribution(options, expected):
    if expected is None:
        t = np.sqrt(P) / np.sum(np.sqrt(P))  # temperature 2
        k = np.r_[t[:4], 0, 0] / t[:4].sum()  # top 4, renormalised; top-p counts mass within them
        keep = np.cumsum(k) - k < 0.7
        expected = np.where(keep, k, 0) / np.sum(k[keep])
    np.testing.assert_allclose(np.exp(filtered(np.log([P]), **options))[0], expected, atol=1e-12)
    counts = frequencies(**options)
    possible = expected > 0
    assert counts[~possible].sum() == 0  # a filtered id is never drawn
    chi2 = np.sum((counts[possible] - counts.sum() * expected[possible]) ** 2 / (counts.sum() * expected[possible]))
    assert chi2 < stats.chi2.isf(1e-4, possible.sum() - 1)


def test_top_p_counts_mass_after_top_k_and_keeps_at_least_one_id():
    log_p = np.log([[0.4, 0.3, 0.2, 0.1]])
    # within the top 3 (4/9, 3/9, 2/9) the third starts at 7/9 >= 0.75: dropped; without top-k at 0.7: kept
    assert np.isfinite(keep_top_p(keep_top_k(log_p, 3), 0.75)).sum() == 2
    assert np.isfinite(keep_top_p(log_p, 0.75)).sum() == 3
    assert np.isfinite(keep_top_p(log_p, 1e-9)).sum() == 1
    assert np.array_equal(keep_top_p(log_p, 1.0), log_p) and np.array_equal(keep_top_k(log_p, 9), log_p)
    np.testing.assert_allclose(np.exp(with_temperature(log_p, 1.0)), [[0.4, 0.3, 0.2, 0.1]])


@pytest.mark.parametrize("options", [{"top_k": 1}, {"top_p": 1e-6}, {"temperature": 0}, {"temperature": 0, "top_k": 3}])
def test_degenerate_filters_are_greedy(options):
    for salt in range(3):
        next_fn = history_next(5, salt)
        prompts = [[0], [1], [4]]
        sampled = sample(next_fn, prompts, 6, seed=salt, eos_id=2, **options)
        assert [g.tokens for g in sampled] == [g.tokens for g in greedy(next_fn, prompts, 6, eos_id=2)]


def test_ties_go_to_the_lower_id_in_greedy_and_top_k():
    def tied_next(tokens, state):
        return np.log(np.tile([0.1, 0.3, 0.3, 0.3], (len(tokens), 1))), None

    assert greedy(tied_next, [[0]], 2)[0].tokens == (1, 1)
    assert sample(tied_next, [[0]], 2, top_k=1, seed=0)[0].tokens == (1, 1)
    assert [i for i, _ in greedy(tied_next, [[0]], 1)[0].choices[0].alternatives] == [1, 2, 3, 0]


def test_a_seed_or_a_generator_reproduces_the_draws():
    next_fn = history_next(6, 0)
    prompts = [[0], [1], [2], [3]]
    first = sample(next_fn, prompts, 8, temperature=1.3, top_p=0.9, seed=42)
    again = sample(next_fn, prompts, 8, temperature=1.3, top_p=0.9, seed=42)
    other = sample(next_fn, prompts, 8, temperature=1.3, top_p=0.9, seed=43)
    assert first == again
    assert [g.tokens for g in first] != [g.tokens for g in other]
    from_generator = sample(next_fn, prompts, 8, temperature=1.3, top_p=0.9, seed=np.random.default_rng(42))
    assert [g.tokens for g in from_generator] == [g.tokens for g in first]


def test_sampled_tokens_carry_the_models_probability_before_the_filters():
    returned = []

    def recording_next(tokens, state):
        log_probs, state = history_next(8, 1)(tokens, state)
        returned.append(log_probs)
        return log_probs, state

    found = sample(recording_next, [[0], [5]], 5, temperature=3.0, top_k=6, seed=7)
    for row, g in enumerate(found):
        for step, choice in enumerate(g.choices):
            log_probs = returned[step][row]
            assert choice.prob == pytest.approx(np.exp(log_probs[choice.token]), rel=1e-12)
            assert [i for i, _ in choice.alternatives] == list(np.argsort(-log_probs, kind="stable")[:5])
        assert g.log_prob == pytest.approx(sum(np.log(c.prob) for c in g.choices))


def test_sampling_stops_at_eos_per_prompt_and_feeds_a_stateful_model_one_id():
    model = StatefulHistory(12, salt=3)  # EOS about 1 in 12 per step
    found = sample(model, [[0, 1]] * 50, 12, eos_id=3, seed=0)
    assert all(g.tokens.count(3) == (1 if g.finished else 0) for g in found)
    assert all(g.finished or len(g.tokens) == 12 for g in found)
    assert all(not g.finished or g.tokens[-1] == 3 for g in found)
    assert 0 < sum(g.finished for g in found) < 50  # some end early, some run to the end
    assert model.calls[0] == (50, 2) and all(shape == (50, 1) for shape in model.calls[1:])
    assert len(model.calls) <= 12


@pytest.mark.parametrize(
    "options, message",
    [
        ({"temperature": -0.1}, "temperature must be a finite number >= 0 \\(0 means greedy"),
        ({"temperature": float("inf")}, "temperature must be a finite number"),
        ({"temperature": "hot"}, "temperature must be a finite number"),
        ({"top_k": 0}, "top_k must be an integer >= 1 or None"),
        ({"top_k": 2.5}, "top_k must be an integer >= 1"),
        ({"top_p": 0.0}, "top_p must be a number in \\(0, 1\\] or None"),
        ({"top_p": 1.5}, "top_p must be a number in \\(0, 1\\]"),
        ({"seed": -3}, "seed must be an integer >= 0, a numpy.random.Generator or None"),
        ({"seed": "abc"}, "seed must be an integer"),
    ],
)
def test_bad_sampling_arguments_are_refused_by_name(options, message):
    with pytest.raises(ValueError, match=message):
        sample(bigram_next, [[0]], 3, **options)
