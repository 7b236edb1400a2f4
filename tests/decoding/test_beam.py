import numpy as np
import pytest

from seqlab.decoding import beam_search, context_next, gnmt_length_penalty, greedy
from tests.decoding.fakes import StatefulHistory, bigram_next, brute_force, history_next, recurrent_next, recurrent_step


@pytest.mark.parametrize(
    "vocabulary, max_new_tokens, eos_id, alpha",
    [(3, 4, None, 0.0), (4, 3, None, 0.0), (3, 4, 2, 0.0), (4, 3, 0, 0.0), (3, 4, 2, 0.8), (4, 3, 0, 1.5)],
)
@pytest.mark.parametrize("salt", [0, 1, 2])
def test_an_exhaustive_beam_equals_brute_force(vocabulary, max_new_tokens, eos_id, alpha, salt):
    prompt = [1, salt % vocabulary]
    width = vocabulary**max_new_tokens  # every sequence fits: beam search is then exact
    found = beam_search(
        history_next(vocabulary, salt),
        [prompt],
        max_new_tokens,
        width=width,
        eos_id=eos_id,
        length_penalty=alpha,
        all_beams=True,
    )[0]
    expected = brute_force(prompt, vocabulary, salt, max_new_tokens, eos_id, alpha)
    assert len(found) == len(expected)  # fewer than `width` sequences exist with EOS
    assert [g.tokens for g in found] == [tokens for _, _, tokens in expected]
    np.testing.assert_allclose([g.score for g in found], [score for score, _, _ in expected], rtol=1e-12)
    np.testing.assert_allclose([g.log_prob for g in found], [total for _, total, _ in expected], rtol=1e-12)
    for g in found:
        assert g.finished == (eos_id is not None and g.tokens[-1] == eos_id)
        assert np.isclose(sum(np.log([c.prob for c in g.choices])), g.log_prob)


@pytest.mark.parametrize("eos_id, alpha", [(None, 0.0), (2, 0.0), (2, 1.0)])
def test_a_small_beam_of_a_batch_keeps_the_best_of_each_prompt_and_the_stateful_state_in_step(eos_id, alpha):
    # Width 4 < 3**4: not exhaustive, so compare with the same search through a context model,
    # and with brute force where it must agree: the best found is never worse than greedy's.
    prompts = [[0, 1], [2, 2], [1, 0]]
    stateful = StatefulHistory(3, salt=5)
    from_state = beam_search(stateful, prompts, 4, width=4, eos_id=eos_id, length_penalty=alpha, all_beams=True)
    from_context = beam_search(
        history_next(3, salt=5), prompts, 4, width=4, eos_id=eos_id, length_penalty=alpha, all_beams=True
    )
    assert [[g.tokens for g in beams] for beams in from_state] == [[g.tokens for g in beams] for beams in from_context]
    assert stateful.calls[0] == (3, 2)  # the prompts once, not once per beam
    assert all(shape == (3 * 4, 1) for shape in stateful.calls[1:])
    for prompt, beams in zip(prompts, from_state):
        scores = [g.score for g in beams]
        assert scores == sorted(scores, reverse=True)
        best_possible = brute_force(prompt, 3, 5, 4, eos_id, alpha)[0][0]
        assert beams[0].score <= best_possible + 1e-12


def test_beam_search_finds_what_greedy_misses():
    # Step 1: a 0.5, b 0.4. After a everything is flat; after b one id has 0.9.
    table = {(): [0.5, 0.4, 0.1], (0,): [0.34, 0.33, 0.33], (1,): [0.05, 0.05, 0.9]}

    next_fn = context_next(lambda context: np.log([table.get(tuple(row[1:]), [1 / 3] * 3) for row in context]))

    assert greedy(next_fn, [[2]], 2)[0].tokens == (0, 0)
    best = beam_search(next_fn, [[2]], 2, width=2)[0]
    assert best.tokens == (1, 2)
    assert np.isclose(best.log_prob, np.log(0.4 * 0.9))


@pytest.mark.parametrize("eos_id", [None, 3, 1])
def test_width_one_is_greedy(eos_id):
    for salt in range(5):
        next_fn = history_next(4, salt)
        prompts = [[0], [1], [2]]
        beams = beam_search(next_fn, prompts, 5, width=1, eos_id=eos_id)
        assert [g.tokens for g in beams] == [g.tokens for g in greedy(next_fn, prompts, 5, eos_id=eos_id)]
    assert beam_search(bigram_next, [[0]], 3, width=1)[0].tokens == (1, 2, 3)


def test_the_length_penalty_is_gnmt_and_favours_longer_hypotheses():
    assert gnmt_length_penalty(1, 0.6) == 1.0
    assert np.isclose(gnmt_length_penalty(7, 1.0), 2.0)
    # First step: a 0.45, b 0.05, EOS 0.5; afterwards a 0.9. [EOS] has log 0.5 = -0.69,
    # (a, a, a, a) log 0.328 = -1.11, which over ((5 + 4) / 6)^2 = 2.25 is -0.50.
    next_fn = context_next(
        lambda context: np.log([[0.45, 0.05, 0.5] if row.size == 1 else [0.9, 0.05, 0.05] for row in context])
    )
    short = beam_search(next_fn, [[1]], 4, width=3, eos_id=2)[0]
    long = beam_search(next_fn, [[1]], 4, width=3, eos_id=2, length_penalty=2.0)[0]
    assert (short.tokens, short.finished) == ((2,), True)
    assert (long.tokens, long.finished) == ((0, 0, 0, 0), False)
    assert np.isclose(long.score, np.log(0.45 * 0.9**3) / 2.25)


def test_every_beam_token_carries_its_model_probability_and_alternatives():
    [best] = beam_search(history_next(6, 3), [[1, 2]], 3, width=3, alternatives=4)
    prefix = (1, 2)
    for choice in best.choices:
        log_probs = history_next(6, 3)(np.array([prefix]), None)[0][0]
        assert np.isclose(choice.prob, np.exp(log_probs[choice.token]))
        assert [i for i, _ in choice.alternatives] == list(np.argsort(-log_probs)[:4])
        prefix += (choice.token,)


def test_no_new_tokens_gives_empty_beams():
    assert beam_search(bigram_next, [[0], [1]], 0, all_beams=True) == [[beam_search(bigram_next, [[0]], 0)[0]]] * 2
    assert beam_search(bigram_next, [[0]], 0)[0].tokens == ()


@pytest.mark.parametrize(
    "options, message",
    [
        ({"width": 0}, "width must be an integer in \\[1, 256\\]"),
        ({"width": 2.0}, "width must be an integer"),
        ({"width": 1000}, "width must be an integer in \\[1, 256\\]"),
        ({"length_penalty": -0.5}, "length_penalty must be a finite number >= 0"),
        ({"length_penalty": float("nan")}, "length_penalty must be a finite number >= 0"),
        ({"eos_id": -1}, "eos_id must be a token id >= 0"),
        ({"eos_id": 4}, "eos_id 4 lies outside the model's vocabulary of 4 ids"),
        ({"all_beams": "yes"}, "all_beams must be true or false"),
    ],
)
def test_bad_beam_arguments_are_refused_by_name(options, message):
    with pytest.raises(ValueError, match=message):
        beam_search(bigram_next, [[0]], 3, **options)


@pytest.mark.parametrize("eos_id", [None, 2])
def test_the_compiled_loop_over_a_tensor_step_decodes_as_beam_search_over_the_same_model_in_numpy(eos_id):
    from keras import ops

    from seqlab.decoding.beam import as_generated_beams, beam_decode
    from seqlab.decoding.while_loop import compiled

    def run(prompts, new_tokens, alpha):  # the prompts read once, then the beams
        state = {"h": ops.zeros((ops.shape(prompts)[0],), "int32")}
        for t in range(prompts.shape[1]):
            log_probs, state = recurrent_step(prompts[:, t], state, t)
        return beam_decode(recurrent_step, log_probs, state, prompts.shape[1], new_tokens, 3, alpha, eos_id, 4)

    in_graph = compiled(run, [((None, 2), "int32"), ((), "int32"), ((), "float32")])  # one graph for every alpha
    prompts = np.array([[1, 2], [4, 0], [5, 5]], dtype="int32")
    for alpha in (0.0, 1.0):
        ours = as_generated_beams(in_graph(prompts, ops.convert_to_tensor(8, "int32"), alpha), all_beams=True)
        theirs = beam_search(recurrent_next, prompts, 8, width=3, eos_id=eos_id, length_penalty=alpha, all_beams=True,
                             alternatives=4)
        for mine, reference in zip(ours, theirs):
            assert [(g.tokens, g.finished) for g in mine] == [(g.tokens, g.finished) for g in reference]
            np.testing.assert_allclose([g.score for g in mine], [g.score for g in reference], rtol=1e-5)
            for a, b in zip(mine[0].choices, reference[0].choices):
                assert a.prob == pytest.approx(b.prob, abs=1e-6)
                assert [i for i, _ in a.alternatives] == [i for i, _ in b.alternatives]
    assert eos_id is None or any(g.finished for beams in ours for g in beams)
