import numpy as np
import pytest

from seqlab.data.sample_source import Samples, long_frame, split_samples


def samples(y):
    x = np.arange(10 * 3 * 2, dtype="float32").reshape(10, 3, 2)
    return Samples(x, y, features=("a", "b"), target="t", classes=("no", "yes"))


def test_splits_keep_the_order_and_scale_on_train_only():
    data = split_samples("toy", "classify", samples(np.arange(10) % 2), {}, True, 0.2, 0.2, {})
    assert [list(data.splits[k].origin) for k in ("train", "val", "test")] == [[0, 1, 2, 3, 4, 5], [6, 7], [8, 9]]
    np.testing.assert_allclose(data.scaler.mean, data.splits["train"].x.reshape(-1, 2).mean(axis=0))
    assert data.lookback == 3 and data.horizon == 1 and data.classes == ("no", "yes")
    unscaled = split_samples("toy", "classify", samples(np.arange(10) % 2), {}, False, 0.2, 0.2, {})
    np.testing.assert_array_equal(unscaled.scaler.std, [1, 1])


def test_long_frame_repeats_a_sequence_target_and_spreads_a_step_target():
    frame = long_frame(samples(np.arange(10)))
    assert frame.shape == (30, 3) and frame.loc[(4, 2), "t"] == 4 and frame.loc[(4, 2), "b"] == 4 * 6 + 5
    per_step = long_frame(samples(np.arange(30).reshape(10, 3)))
    assert per_step.loc[(4, 2), "t"] == 14


def test_too_few_samples_for_three_splits():
    with pytest.raises(ValueError, match="split empty"):
        split_samples("toy", "regress", samples(np.zeros((10, 1))), {}, False, 0.01, 0.01, {})
