"""Without positions self-attention reads a bag of words: "Live to Work" and "Work to Live" read the same."""

import numpy as np
import pytest

from seqlab.inspect.word_order import word_order


def test_without_positions_each_word_gets_the_same_vector_in_both_orders():
    result = word_order("Live to Work", "Work to Live", positions=False)
    assert result.sentences == (["Live", "to", "Work"], ["Work", "to", "Live"])
    assert list(result.permutation) == [2, 1, 0]
    first, second = result.outputs
    assert not np.allclose(first, second, atol=1e-3)  # the rows are permuted, not equal in place
    np.testing.assert_allclose(second, first[result.permutation], atol=1e-5)
    assert result.same() and result.mean_difference < 1e-5  # a mean-pooling classifier cannot tell them apart


def test_with_positions_the_two_orders_read_differently():
    result = word_order("Live to Work", "Work to Live", positions=True)
    assert not result.same() and result.token_difference > 1e-2 and result.mean_difference > 1e-2
    plain = word_order("Live to Work", "Work to Live", positions=False)
    assert plain.outputs[0].shape == result.outputs[0].shape == (3, 8)


def test_the_same_seed_gives_the_same_block():
    a, b = word_order(seed=7), word_order(seed=7)
    np.testing.assert_array_equal(a.outputs[0], b.outputs[0])


@pytest.mark.parametrize("second", ["Work to Play", "Work Live", "Live to to"])
def test_sentences_that_are_not_a_reordering_are_refused(second):
    with pytest.raises(ValueError, match="same distinct words in another order"):
        word_order("Live to Work", second)
