"""BERT's masking: 15 % of the candidates chosen; of those 80 % [MASK], 10 % a random word, 10 % kept."""

import keras
import numpy as np
import pytest

from seqlab.data.bert_masking import mask_tokens

V, MASK_ID, FIRST = 500, 4, 5


def draw(seed, n=400, t=100):
    rng = np.random.default_rng(0)
    ids = rng.integers(FIRST, V, size=(n, t)).astype("int32")
    candidates = rng.random((n, t)) < 0.7
    masked, chosen = mask_tokens(ids, candidates, seed, vocab_size=V, mask_id=MASK_ID, first_word_id=FIRST)
    return ids, candidates, keras.ops.convert_to_numpy(masked), keras.ops.convert_to_numpy(chosen)


def test_proportions_over_many_draws():
    ids, candidates, masked, chosen = draw(seed=1)  # 28,000 candidates, about 4,200 chosen
    assert not (chosen & ~candidates).any(), "only candidates are chosen"
    assert (masked[~chosen] == ids[~chosen]).all(), "the others are untouched"
    assert chosen.sum() / candidates.sum() == pytest.approx(0.15, abs=0.01)
    was, now = ids[chosen], masked[chosen]
    as_mask = now == MASK_ID
    kept = now == was
    random = ~as_mask & ~kept
    assert as_mask.mean() == pytest.approx(0.8, abs=0.02)
    # a random word equals the original one time in V - FIRST: "kept" gains that share of the random ones
    assert random.mean() == pytest.approx(0.1 * (1 - 1 / (V - FIRST)), abs=0.015)
    assert kept.mean() == pytest.approx(0.1, abs=0.015)
    assert (now[random] >= FIRST).all() and (now[random] < V).all(), "random words, never a special token"
    assert len(np.unique(now[random])) > 200, "drawn across the vocabulary"


def test_a_seed_generator_draws_anew_an_int_seed_repeats():
    generator = keras.random.SeedGenerator(3)
    _, _, first, chosen_1 = draw(generator, n=20, t=50)
    _, _, second, chosen_2 = draw(generator, n=20, t=50)
    assert (chosen_1 != chosen_2).any(), "dynamic masking: every call chooses again"
    assert (draw(7, n=20, t=50)[3] == draw(7, n=20, t=50)[3]).all(), "a held-out split's draw is fixed by its seed"


def test_bad_shares_are_refused():
    with pytest.raises(ValueError, match="BERT uses 0.15"):
        mask_tokens(np.zeros((1, 3)), np.ones((1, 3), bool), 0, vocab_size=V, mask_id=MASK_ID, first_word_id=FIRST,
                    rate=0.0)
    with pytest.raises(ValueError, match="below vocab_size"):
        mask_tokens(np.zeros((1, 3)), np.ones((1, 3), bool), 0, vocab_size=5, mask_id=MASK_ID, first_word_id=FIRST)
