"""The compiled loop (``seqlab.decoding.while_loop``) against the NumPy decoders on one recurrent fake model: the
same ids, probabilities and alternatives, each row of a ragged batch as alone, the same draws for a seed, EOS per
row, and the same in a graph as eagerly."""

import numpy as np
import pytest
from keras import ops

from seqlab.decoding import greedy, sample
from seqlab.decoding.sampling import picker
from seqlab.decoding.while_loop import as_generated, compiled, continuation, decode
from tests.decoding.fakes import recurrent_next, recurrent_step

def compiled_decode(prompts, new_tokens, temperature=0.0, uniforms=None, eos_id=None, run=decode, **filters):
    lengths = np.array([len(p) for p in prompts])
    buffer = np.zeros((len(prompts), max(lengths) + new_tokens), dtype="int32")
    for row, prompt in enumerate(prompts):
        buffer[row, : len(prompt)] = prompt
    by_position = np.zeros(buffer.shape, dtype="float32")
    if uniforms is not None:  # one number per new id, at the position it draws
        for row, length in enumerate(lengths):
            by_position[row, length : length + new_tokens] = uniforms[row]
    state = {"h": ops.zeros((len(prompts),), "int32")}
    decoded = run(recurrent_step, state, buffer, lengths, new_tokens, picker(temperature, **filters), by_position,
                  eos_id, 3)
    return as_generated(continuation(decoded, lengths, new_tokens), eos_id)


def test_greedy_gives_the_numpy_decoders_ids_probabilities_and_alternatives():
    prompts = [[1, 2, 3], [4, 0, 5]]
    [ours, ours_2], [theirs, theirs_2] = compiled_decode(prompts, 7), greedy(recurrent_next, prompts, 7, alternatives=3)
    for a, b in ((ours, theirs), (ours_2, theirs_2)):
        assert a.tokens == b.tokens and a.log_prob == pytest.approx(b.log_prob, abs=1e-5)
        for x, y in zip(a.choices, b.choices):
            assert x.prob == pytest.approx(y.prob, abs=1e-6)
            assert [i for i, _ in x.alternatives] == [i for i, _ in y.alternatives]


def test_each_row_of_a_ragged_batch_gets_what_it_gets_alone():
    prompts = [[2], [1, 2, 3, 4, 5], [3, 3, 0]]
    together = compiled_decode(prompts, 6)
    assert [g.tokens for g in together] == [compiled_decode([p], 6)[0].tokens for p in prompts]
    assert [g.tokens for g in together] == [greedy(recurrent_next, [p], 6)[0].tokens for p in prompts]


@pytest.mark.parametrize("filters", [{}, {"top_k": 3}, {"top_p": 0.8}])
def test_the_seeds_uniforms_give_the_draws_of_numpy_sampling(filters):
    seed, new = 7, 12
    uniforms = np.random.default_rng(seed).random((new, 1)).T  # one draw per step, as sample() makes them
    [ours] = compiled_decode([[1, 2]], new, temperature=0.9, uniforms=uniforms, **filters)
    [theirs] = sample(recurrent_next, [[1, 2]], new, temperature=0.9, seed=seed, **filters)
    assert ours.tokens == theirs.tokens and len(set(ours.tokens)) > 1


def test_eos_ends_each_row_and_the_loop_once_all_ended():
    prompts = [[1, 2, 3], [4, 0, 5], [5, 5, 5]]
    ours, theirs = compiled_decode(prompts, 30, eos_id=2), greedy(recurrent_next, prompts, 30, eos_id=2)
    assert [(g.tokens, g.finished) for g in ours] == [(g.tokens, g.finished) for g in theirs]
    assert any(g.finished for g in ours)


def test_the_compiled_graph_decodes_as_eager_ops_and_no_new_tokens_gives_none():
    prompts = [[1, 2, 3], [4, 0, 5]]
    in_graph = compiled(decode)
    assert [g.tokens for g in compiled_decode(prompts, 9, run=in_graph)] == [g.tokens for g in
                                                                             compiled_decode(prompts, 9)]
    assert [g.tokens for g in compiled_decode(prompts, 0)] == [(), ()]
