import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.data.mackey_glass import mackey_glass_frame, mackey_glass_series


def test_the_series_follows_the_delay_equation():
    x = mackey_glass_series(600)
    tau = 17  # samples are one time unit apart, so x(t - tau) is x[t - 17]
    t = np.arange(tau + 1, len(x) - 1)
    derivative = (x[t + 1] - x[t - 1]) / 2
    rhs = 0.2 * x[t - tau] / (1 + x[t - tau] ** 10) - 0.1 * x[t]
    # Central differences of unit-spaced samples: within a tenth of the derivative's own spread.
    assert np.max(np.abs(derivative - rhs)) < 0.1 * np.std(rhs)
    assert 0.2 < x.min() and x.max() < 1.5


def test_squashed_seeded_and_windowed():
    frame = mackey_glass_frame(length=300, seed=2)
    np.testing.assert_allclose(frame["x"], np.tanh(mackey_glass_series(300, seed=2) - 1))
    np.testing.assert_array_equal(frame["x"], mackey_glass_frame(length=300, seed=2)["x"])
    assert not np.allclose(frame["x"], mackey_glass_frame(length=300, seed=3)["x"])
    data = load_dataset("mackey_glass", length=400, lookback=30, horizon=5)
    assert data.task == "forecast" and data.input_shape == (30, 1) and data.splits["test"].y.shape[1] == 5


@pytest.mark.parametrize("options, message", [({"tau": 0}, "tau"), ({"length": 5}, "length")])
def test_bad_options_name_the_problem(options, message):
    with pytest.raises(ValueError, match=message):
        load_dataset("mackey_glass", **options)
