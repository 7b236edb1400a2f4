import numpy as np

from seqlab.decoding.ranking import top_ids


def test_top_ids_is_a_stable_descending_sort_cut_to_k():
    rng = np.random.default_rng(0)
    values = rng.integers(0, 5, size=(50, 12)).astype(float)  # many ties
    values[rng.random(values.shape) < 0.2] = -np.inf
    reference = np.argsort(-values, axis=-1, kind="stable")
    for k in [1, 3, 7, 12, 20]:
        np.testing.assert_array_equal(top_ids(values, k), reference[:, :k])
    assert top_ids(values, 0).shape == (50, 0)
