import numpy as np
import pytest

from seqlab.decoding import MAX_NEW_TOKENS, greedy
from tests.decoding.fakes import BIGRAM, StatefulHistory, bigram_next, history_next


def test_greedy_takes_the_argmax_of_every_step():
    for salt in range(3):
        next_fn = history_next(5, salt)
        [found] = greedy(next_fn, [[1, 3]], 6)
        history = [1, 3]
        for _ in range(6):
            history.append(int(np.argmax(next_fn(np.array([history]), None)[0][0])))
        assert found.tokens == tuple(history[2:])


def test_each_token_carries_its_probability_and_the_top_alternatives():
    [found] = greedy(bigram_next, [[0]], 4, alternatives=3)
    last = 0
    for choice in found.choices:
        row = BIGRAM[last]
        assert choice.prob == pytest.approx(row[choice.token], rel=1e-12)
        assert [i for i, _ in choice.alternatives] == list(np.argsort(-row)[:3])
        np.testing.assert_allclose([p for _, p in choice.alternatives], np.sort(row)[::-1][:3], rtol=1e-12)
        last = choice.token
    assert found.log_prob == pytest.approx(np.log(0.6 * 0.7 * 0.65 * 0.5))
    assert found.score == found.log_prob and not found.finished


def test_eos_stops_each_prompt_on_its_own_and_the_model_is_not_called_after_all_stopped():
    calls = []

    def next_fn(tokens, state):
        calls.append(tokens[:, -1].tolist())
        return bigram_next(tokens, state)

    # from 1: 2, 3 (EOS); from 3: 3 (EOS) at once; from 0: 1, 2, 3 (EOS)
    found = greedy(next_fn, [[1], [3], [0]], 10, eos_id=3)
    assert [g.tokens for g in found] == [(2, 3), (3,), (1, 2, 3)]
    assert all(g.finished for g in found)
    assert len(calls) == 3  # the prompts, then two steps; nothing once every prompt has ended
    assert calls[1][1] == 3  # an ended prompt is fed EOS while the others go on


def test_a_stateful_model_reads_the_prompt_once_then_one_id_per_step():
    model = StatefulHistory(4, salt=1)
    greedy(model, [[0, 1, 2], [3, 3, 3]], 7)
    assert model.calls == [(2, 3)] + [(2, 1)] * 6  # 7 calls for 7 ids, the last id never fed back


def test_inputs_may_be_any_array_like():
    import keras

    def tensor_next(tokens, state):
        return keras.ops.convert_to_tensor(np.log(BIGRAM[tokens[:, -1]]).astype("float32")), None

    [found] = greedy(tensor_next, keras.ops.convert_to_tensor([[0]]), 3)
    assert found.tokens == (1, 2, 3)
    assert found.choices[0].prob == pytest.approx(0.6, rel=1e-6)


def test_no_new_tokens_means_no_call():
    def never(tokens, state):
        raise AssertionError("next() must not be called")

    assert greedy(never, [[0]], 0)[0].tokens == ()


@pytest.mark.parametrize(
    "prompts, max_new_tokens, options, message",
    [
        ([[0]], -1, {}, "max_new_tokens must be an integer in \\[0, 10000\\], got -1"),
        ([[0]], MAX_NEW_TOKENS + 1, {}, "max_new_tokens must be an integer in \\[0, 10000\\]"),
        ([[0]], 2.5, {}, "max_new_tokens must be an integer"),
        ([[0]], True, {}, "max_new_tokens must be an integer"),
        ([0, 1], 3, {}, "wrap a single prompt as \\[ids\\]"),
        ([[0, 1], [2]], 3, {}, "prompts must all have the same length"),
        ([[]], 3, {}, "both >= 1"),
        ([[0.5]], 3, {}, "prompts must be integer token ids"),
        ([[-1]], 3, {}, "token ids >= 0"),
        ([[7]], 3, {}, "prompts hold id 7, but next\\(\\) returned 4 log-probabilities"),
        ([[0]], 3, {"eos_id": 2.0}, "eos_id must be a token id >= 0 or None"),
        ([[0]], 3, {"alternatives": -1}, "alternatives must be an integer >= 0"),
    ],
)
def test_bad_arguments_are_refused_by_name(prompts, max_new_tokens, options, message):
    def uniform_next(tokens, state):  # reads no id, so only the decoder can refuse one
        return np.log(np.full((len(tokens), 4), 0.25)), None

    with pytest.raises(ValueError, match=message):
        greedy(uniform_next, prompts, max_new_tokens, **options)
