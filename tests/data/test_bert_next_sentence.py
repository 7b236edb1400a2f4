"""Next-sentence pairs drawn anew: half the rows get another row's B, the targets move with it, labels at [CLS]."""

import keras
import numpy as np
import pytest

from seqlab.data.bert_next_sentence import draw_pairs
from seqlab.data.bert_pretraining import CLS_ID, SEP_ID, pair_rows, sides

# Row i: A = [100 i + 10, ...], B = [100 i + 50, ...], lengths varying with i.
FIRSTS = [[100 * i + 10 + j for j in range(1 + i % 3)] for i in range(6)]
SECONDS = [[100 * i + 50 + j for j in range(1 + i % 4)] for i in range(6)]


def drawn(seed):
    x, y = pair_rows(FIRSTS, SECONDS, 12)
    x, y = draw_pairs(x, y, seed, sep_id=SEP_ID)
    return keras.ops.convert_to_numpy(x), keras.ops.convert_to_numpy(y)


def test_a_row_keeps_its_a_and_takes_b_whole_from_another_row_exactly_when_labelled_random():
    for seed in range(5):
        x, y = drawn(seed)
        for i, (row, targets) in enumerate(zip(x, y)):
            a, b = sides(row)
            assert row[0] == CLS_ID and a == FIRSTS[i] and (row == SEP_ID).sum() == 2
            owner = b[0] // 100
            assert b == SECONDS[owner], "B is one row's B, whole"
            assert (owner == i) == bool(targets[0]), "the label says whether B is the row's own"
            assert (targets[1:][row[1:] != SEP_ID] == row[1:][row[1:] != SEP_ID]).all(), "targets move with B"
            assert (row[len(a) + len(b) + 3:] == 0).all() and (targets[len(a) + len(b) + 3:] == 0).all()


def test_half_the_rows_get_another_b_and_a_generator_draws_anew_an_int_seed_once():
    x, y = pair_rows([[7]] * 400, [[8 + i] for i in range(400)], 6)
    generator = keras.random.SeedGenerator(1)
    labels = [keras.ops.convert_to_numpy(draw_pairs(x, y, generator, sep_id=SEP_ID)[1])[:, 0] for _ in range(3)]
    assert all(np.mean(lab) == pytest.approx(0.5, abs=0.07) for lab in labels)
    assert (labels[0] != labels[1]).any(), "a new draw at every call"
    assert (drawn(3)[0] == drawn(3)[0]).all(), "an int seed draws the same pairs"


def test_a_single_row_keeps_its_b():
    x, y = pair_rows([[7]], [[8]], 6)
    x2, y2 = draw_pairs(x, y, 0, sep_id=SEP_ID, random_share=1.0)
    assert keras.ops.convert_to_numpy(x2).tolist() == x.tolist() and int(keras.ops.convert_to_numpy(y2)[0, 0]) == 1


def test_random_share_outside_0_1_is_refused():
    with pytest.raises(ValueError, match="random_share must lie in"):
        draw_pairs(np.zeros((2, 4)), np.zeros((2, 4)), 0, sep_id=SEP_ID, random_share=1.5)
