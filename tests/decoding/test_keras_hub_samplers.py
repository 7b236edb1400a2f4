"""seqlab.decoding against keras_hub.samplers where both compute the same thing: greedy, beam search, top-k, top-p.

keras_hub's samplers fill a fixed-length prompt tensor through ``next(prompt, cache,
index) -> (logits, hidden, cache)``; seqlab's decoders call ``next(tokens, state)``.
Both are given the same fake model (a distribution that depends on the whole history,
so beam search and greedy disagree), and must choose the same ids.
"""

import keras_hub  # a test requirement (requirements-dev.txt), not one of seqlab's
import numpy as np
import pytest
from keras import ops

from seqlab.decoding import beam_search, greedy
from seqlab.decoding.sampling import keep_top_k, keep_top_p
from tests.decoding.fakes import history_log_probs, history_next

VOCABULARY, SALT, NEW = 5, 3, 4  # salt 3: the best beam is not the greedy path
PROMPTS = [[1, 2], [3, 0], [4, 4]]


def keras_hub_next(prompt, cache, index):
    """The fake model in keras_hub's contract: logits of the id at ``index`` given ``prompt[:, :index]``."""
    rows, index = ops.convert_to_numpy(prompt), int(ops.convert_to_numpy(index))
    logits = np.stack([history_log_probs(tuple(row[:index]), VOCABULARY, SALT) for row in rows])
    return ops.convert_to_tensor(logits.astype("float32")), None, cache


def keras_hub_decode(sampler):
    prompt = np.zeros((len(PROMPTS), len(PROMPTS[0]) + NEW), dtype="int32")
    prompt[:, : len(PROMPTS[0])] = PROMPTS
    mask = np.zeros_like(prompt, dtype=bool)
    mask[:, : len(PROMPTS[0])] = True
    return sampler(keras_hub_next, ops.convert_to_tensor(prompt), index=len(PROMPTS[0]),
                   mask=ops.convert_to_tensor(mask))


def test_greedy_equals_keras_hub_greedy_sampler():
    ours = greedy(history_next(VOCABULARY, SALT), PROMPTS, NEW)
    theirs = ops.convert_to_numpy(keras_hub_decode(keras_hub.samplers.GreedySampler()))
    assert [list(g.tokens) for g in ours] == theirs[:, len(PROMPTS[0]) :].tolist()


@pytest.mark.parametrize("width", [2, 3])
def test_beam_search_equals_keras_hub_beam_sampler(width):
    ours = beam_search(history_next(VOCABULARY, SALT), PROMPTS, NEW, width=width, all_beams=True)
    beams, log_probs = keras_hub_decode(keras_hub.samplers.BeamSampler(num_beams=width, return_all_beams=True))
    beams, log_probs = ops.convert_to_numpy(beams), ops.convert_to_numpy(log_probs)
    for found, their_beams, their_log_probs in zip(ours, beams, log_probs):
        assert [list(g.tokens) for g in found] == their_beams[:, len(PROMPTS[0]) :].tolist()
        np.testing.assert_allclose([g.log_prob for g in found], their_log_probs, rtol=1e-5)  # keras_hub: float32
    greedy_paths = greedy(history_next(VOCABULARY, SALT), PROMPTS, NEW)
    assert any(found[0].tokens != g.tokens for found, g in zip(ours, greedy_paths))  # more than greedy


@pytest.mark.parametrize(
    "sampler, keep",
    [
        (keras_hub.samplers.TopKSampler(k=3, seed=0), lambda lp: keep_top_k(lp, 3)),
        (keras_hub.samplers.TopPSampler(p=0.7, seed=0), lambda lp: keep_top_p(lp, 0.7)),
        (keras_hub.samplers.TopPSampler(p=0.95, seed=0), lambda lp: keep_top_p(lp, 0.95)),
    ],
)
def test_top_k_and_top_p_keep_the_ids_keras_hub_samples_from(sampler, keep):
    # Different random streams, so compare what can be drawn: keras_hub's draws over many rows
    # of one distribution hit exactly the ids that seqlab's filter keeps.
    rng = np.random.default_rng(0)
    for _ in range(5):
        probabilities = rng.dirichlet(np.full(12, 0.7))
        drawn = ops.convert_to_numpy(sampler.get_next_token(ops.convert_to_tensor(np.tile(probabilities, (4000, 1)))))
        kept = np.flatnonzero(np.isfinite(keep(np.log(probabilities)[None])[0]))
        assert set(drawn.tolist()) == set(kept.tolist())
