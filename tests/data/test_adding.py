import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.data.adding import adding_samples


def test_two_markers_one_per_half_and_the_target_is_their_sum():
    s = adding_samples(length_T=9, samples=200, seed=1)
    assert s.x.shape == (200, 9, 2) and s.y.shape == (200, 1)
    values, markers = s.x[..., 0], s.x[..., 1]
    assert ((values >= 0) & (values < 1)).all()
    assert (markers.sum(axis=1) == 2).all()
    assert (markers[:, :4].sum(axis=1) == 1).all() and (markers[:, 4:].sum(axis=1) == 1).all()
    np.testing.assert_allclose(s.y[:, 0], (values * markers).sum(axis=1))


def test_the_constant_prediction_scores_about_one_sixth():
    y = adding_samples(length_T=2, samples=20000).y
    # Var(u_a + u_b) = 2/12 for two independent U(0, 1) values.
    assert np.mean((y - 1.0) ** 2) == pytest.approx(1 / 6, rel=0.03)


def test_seeded_and_split_as_a_regression_dataset():
    a = load_dataset("adding", length_T=6, samples=100, seed=3)
    b = load_dataset("adding", length_T=6, samples=100, seed=3)
    np.testing.assert_array_equal(a.splits["test"].x, b.splits["test"].x)
    assert not np.array_equal(a.splits["test"].x, load_dataset("adding", length_T=6, samples=100, seed=4).splits["test"].x)
    assert a.task == "regress" and a.input_shape == (6, 2) and a.horizon == 1
    assert [len(a.splits[k]) for k in ("train", "val", "test")] == [80, 10, 10]
    np.testing.assert_array_equal(a.scaler.mean, [0, 0])  # inputs are fed unscaled


@pytest.mark.parametrize(
    "options, message",
    [
        ({"length_T": 1}, r"length_T must lie in \[2, 2000\]"),
        ({"length_T": 2.5}, "length_T"),
        ({"samples": 3}, "samples"),
    ],
)
def test_bad_options_name_the_problem(options, message):
    with pytest.raises(ValueError, match=message):
        load_dataset("adding", **options)
