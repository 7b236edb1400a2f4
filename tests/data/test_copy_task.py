import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.data.copy_task import copy_samples


def test_symbols_then_delay_then_the_delimiter_then_the_copy():
    s = copy_samples(length=3, delay=4, symbols=5, samples=50, seed=2)
    steps = 2 * 3 + 4
    assert s.x.shape == (50, steps, 5 + 2) and s.y.shape == (50, steps)
    assert (s.x.sum(axis=-1) == 1).all()  # one-hot
    tokens = s.x.argmax(axis=-1)  # 0 blank, 1..5 symbols, 6 delimiter
    assert ((tokens[:, :3] >= 1) & (tokens[:, :3] <= 5)).all()
    assert (tokens[:, 3:6] == 0).all() and (tokens[:, 6] == 6).all() and (tokens[:, 7:] == 0).all()
    assert (s.y[:, :7] == 0).all()
    np.testing.assert_array_equal(s.y[:, 7:], tokens[:, :3])
    assert s.classes == ("blank", "a", "b", "c", "d", "e")
    assert s.features == ("blank", "a", "b", "c", "d", "e", "delimiter")


def test_registered_as_a_labelling_task_and_seeded():
    data = load_dataset("copy", length=2, delay=3, samples=40, seed=1)
    assert data.task == "label" and data.input_shape == (7, 10) and data.horizon == 7
    assert data.splits["train"].y.shape == (32, 7) and len(data.classes) == 9
    again = load_dataset("copy", length=2, delay=3, samples=40, seed=1)
    np.testing.assert_array_equal(data.splits["val"].y, again.splits["val"].y)


@pytest.mark.parametrize(
    "options, message",
    [({"delay": 0}, "delay"), ({"length": 0}, "length"), ({"symbols": 1}, "symbols"),
     ({"symbols": 27}, "at most 26"), ({"samples": 5}, "samples")],
)
def test_bad_options_name_the_problem(options, message):
    with pytest.raises(ValueError, match=message):
        copy_samples(**options)
