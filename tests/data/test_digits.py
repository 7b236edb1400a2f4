import numpy as np
import pytest
from sklearn.datasets import load_digits

from seqlab.data import load_dataset


@pytest.fixture(scope="module")
def digits():
    return load_dataset("digits")


def test_each_image_is_a_sequence_of_its_rows(digits):
    assert digits.task == "classify" and digits.input_shape == (8, 8) and digits.classes == tuple("0123456789")
    assert sum(len(s) for s in digits.splits.values()) == 1797
    images = load_digits().images
    test = digits.splits["test"]
    # origin is the position in the shuffled order; the rows of the image are the time steps.
    match = [np.flatnonzero((images == x).all(axis=(1, 2))) for x in test.x[:5]]
    assert all(len(m) >= 1 for m in match)
    np.testing.assert_array_equal(test.x[0][2], images[match[0][0]][2])


def test_the_seed_shuffles_and_the_scaler_is_fitted_on_train(digits):
    other = load_dataset("digits", seed=1)
    assert not np.array_equal(digits.splits["train"].y, other.splits["train"].y)
    train = digits.splits["train"].x.reshape(-1, 8)
    np.testing.assert_allclose(digits.scaler.mean, train.mean(axis=0), rtol=1e-5)
    assert set(np.unique(digits.splits["train"].y)) == set(range(10))


def test_bad_fraction():
    with pytest.raises(ValueError, match="val_fraction"):
        load_dataset("digits", val_fraction=0.6)
