"""The Markov baselines depend on the data alone: computed once per data content, then read back (in this process
from memory, in the next from the cache folder), with their steps reported while they are computed."""

from collections import OrderedDict

import numpy as np
import pytest

from seqlab.data.corpora import Corpus
from seqlab.data.text_windows import TEXT_DEFAULTS, text_data
from seqlab.progress import listening
from seqlab.tasks.language import baselines


def toy(text: str):
    return text_data("toy", Corpus(text, "toy", "test", "public domain"), **{**TEXT_DEFAULTS, "lookback": 8,
                                                                             "stride": 8})


@pytest.fixture
def counted(tmp_path, monkeypatch):
    """The baselines' cache in a folder of the test's own, an empty memory, and the computations counted."""
    monkeypatch.setenv("SEQLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(baselines, "_KEPT", OrderedDict())
    calls = []
    compute = baselines.best_markov_chain

    def counting(data, y):
        calls.append(data.name)
        return compute(data, y)

    monkeypatch.setattr(baselines, "best_markov_chain", counting)
    return calls


def test_the_baselines_of_one_dataset_are_computed_once_and_read_back_after(counted, tmp_path, monkeypatch):
    data = toy("abcd" * 200 + "abce" * 100)
    y = np.asarray(data.splits["test"].y, dtype="int64")
    reports = []
    with listening(lambda *args: reports.append(args)):
        first = baselines.markov_baseline(data, y)
    assert counted == ["toy"]
    steps = [r for r in reports if r[0] == baselines.COUNTING]
    assert steps[0][1] == 0 and steps[-1][1] == steps[-1][2] == len(steps) - 1  # every step reported, to the end
    assert list((tmp_path / "cache" / "baselines").glob("*.npz"))  # kept for the next process

    reports.clear()
    with listening(lambda *args: reports.append(args)):
        again = baselines.markov_baseline(data, y)  # the next run on this data, in this process
    assert counted == ["toy"] and reports == [(baselines.READ_BACK, 1, 1, "steps")]
    monkeypatch.setattr(baselines, "_KEPT", OrderedDict())  # a new process: only the file remains
    read = baselines.markov_baseline(toy("abcd" * 200 + "abce" * 100), y)
    assert counted == ["toy"]
    for kept in (again, read):
        assert kept[0] == first[0]
        np.testing.assert_array_equal(kept[1], first[1])
        np.testing.assert_array_equal(kept[2], first[2])


def test_other_data_gets_baselines_of_its_own(counted):
    for text in ("abcd" * 300, "abdc" * 300):
        data = toy(text)
        baselines.markov_baseline(data, np.asarray(data.splits["test"].y, dtype="int64"))
    assert counted == ["toy", "toy"]


def test_a_damaged_cache_file_is_computed_anew(counted, tmp_path, monkeypatch):
    data = toy("abcd" * 300)
    y = np.asarray(data.splits["test"].y, dtype="int64")
    first = baselines.markov_baseline(data, y)
    [kept] = (tmp_path / "cache" / "baselines").glob("*.npz")
    kept.write_bytes(b"not an npz file")
    monkeypatch.setattr(baselines, "_KEPT", OrderedDict())
    name, p_true, _ = baselines.markov_baseline(data, y)
    assert len(counted) == 2 and name == first[0]
    np.testing.assert_array_equal(p_true, first[1])


def test_a_lower_order_read_from_one_counting_is_the_chain_counted_at_that_order():
    from seqlab.layers.markov import MarkovChain

    text = np.random.default_rng(0).integers(0, 5, 400)
    windows = np.random.default_rng(1).integers(0, 5, (3, 9))
    counted = MarkovChain(5, 5, alpha=0.1).fit(text)
    for order in (1, 2, 4):
        alone = MarkovChain(order, 5, alpha=0.1).fit(text)
        np.testing.assert_array_equal(np.asarray(baselines.lower_order(counted, order)(windows)),
                                      np.asarray(alone(windows)))
        y = np.roll(windows, -1, axis=1)
        np.testing.assert_allclose(baselines.markov_p_true(alone, windows, y),
                                   baselines.markov_predictions(alone, windows, y)[0], rtol=1e-6)
