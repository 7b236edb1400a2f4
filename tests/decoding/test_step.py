import doctest

import numpy as np
import pytest

import seqlab.decoding
from seqlab.decoding import beam_search, context_next, greedy, log_softmax, sample


def test_the_package_example_runs():
    assert doctest.testmod(seqlab.decoding, raise_on_error=True).attempted >= 5


def test_log_softmax_normalises_logits_and_keeps_impossible_ids():
    log_p = log_softmax([[1000.0, 1000.0, -np.inf], [0.0, np.log(3.0), 0.0]])
    np.testing.assert_allclose(np.exp(log_p), [[0.5, 0.5, 0.0], [0.2, 0.6, 0.2]])


def test_context_next_carries_the_context_and_trims_it_to_the_window():
    seen = []

    def last_two(context):
        seen.append(context.copy())
        return np.log(np.full((len(context), 3), 1 / 3))

    next_fn = context_next(last_two, window=2)
    _, state = next_fn(np.array([[0, 1, 2]]), None)
    _, state = next_fn(np.array([[1]]), state)
    assert [c.tolist() for c in seen] == [[[1, 2]], [[2, 1]]]
    with pytest.raises(ValueError, match="window must be a positive integer or None"):
        context_next(last_two, window=0)


def uniform(rows, vocabulary=4):
    return np.log(np.full((rows, vocabulary), 1 / vocabulary))


def with_first(value):
    """Uniform log-probabilities for two rows with ``value`` at id 0 of row 0."""
    log_probs = uniform(2)
    log_probs[0, 0] = value
    return log_probs


@pytest.mark.parametrize(
    "returned, message",
    [
        (lambda t: uniform(len(t)), "next\\(\\) must return a pair \\(log_probs, state\\)"),
        (lambda t: (uniform(len(t))[:, None, :], None), "rows = 2, got shape \\(2, 1, 4\\); return only"),
        (lambda t: (uniform(1), None), "with rows = 2, got shape \\(1, 4\\)"),
        (lambda t: (with_first(np.nan), None), "nan as the log-probability of id 0 in row 0"),
        (lambda t: (with_first(np.inf), None), "inf as the log-probability"),
        (lambda t: (np.full((2, 4), -np.inf), None), "every token probability 0 .* in row 0"),
        (lambda t: (np.ones((2, 4)), None), "exp\\(log_probs\\) sums to 10.8731 in row 0; pass a model's logits"),
    ],
)
@pytest.mark.parametrize("decoder", [greedy, sample, beam_search])
def test_a_bad_answer_from_next_is_refused_with_what_is_wrong(returned, message, decoder):
    with pytest.raises(ValueError, match=message):
        decoder(lambda tokens, state: returned(tokens), [[0], [1]], 2)


def test_a_vocabulary_that_changes_between_steps_is_refused():
    def shrinking(tokens, state):
        return uniform(len(tokens), 4 if state is None else 3), "seen"

    with pytest.raises(ValueError, match="returned 3 log-probabilities per row after 4 on the first call"):
        greedy(shrinking, [[0]], 3)


def test_slightly_unnormalised_float32_log_probabilities_are_accepted_and_renormalised():
    def float32_next(tokens, state):
        return (uniform(len(tokens), 5) + 1e-5).astype(np.float32), None  # sums to 1.00001

    [found] = greedy(float32_next, [[0]], 1)
    assert found.choices[0].prob == pytest.approx(0.2, rel=1e-12)


def test_beam_search_reorders_every_array_of_a_nested_state_and_gives_it_back_nested():
    from collections import namedtuple

    from tests.decoding.fakes import history_log_probs, history_next

    Carry = namedtuple("Carry", "last history")

    def nested_next(tokens, state):
        if state is not None:  # each beam's own history, in the structure returned
            assert isinstance(state["cell"], Carry) and state["none"] is None and isinstance(state["seen"], tuple)
            assert (state["cell"].last == state["cell"].history[:, -1]).all()
            assert (state["seen"][0] == state["cell"].history.shape[1]).all()
        history = tokens if state is None else np.concatenate([state["cell"].history, tokens], axis=1)
        log_probs = np.stack([history_log_probs(tuple(row), 4, 2) for row in history])
        return log_probs, {"cell": Carry(history[:, -1], history), "seen": (np.full(len(history), history.shape[1]),),
                           "none": None}

    prompts = [[0, 1], [3, 3]]
    nested = beam_search(nested_next, prompts, 4, width=3, all_beams=True)
    assert [[g.tokens for g in beams] for beams in nested] == [
        [g.tokens for g in beams] for beams in beam_search(history_next(4, 2), prompts, 4, width=3, all_beams=True)
    ]
