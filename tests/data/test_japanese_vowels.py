"""japanese_vowels: the .ts files read from the sktime sdist, padded and masked, the published split kept."""

import subprocess

import numpy as np
import pytest

from seqlab.data import get_dataset, load_dataset
from seqlab.data.corpora.japanese_vowels import FILES, fetch_sktime, load_japanese_vowels
from seqlab.data.corpora.ts_format import parse_ts
from tests.data.corpora.vowels_sdist import LENGTHS, cache_vowels_sdist, make_vowels_sdist, ts_file

SMALL = """# a comment
@problemName Tiny
@timeStamps false
@univariate false
@dimensions 2
@equalLength false
@classLabel true a b
@data
1,2,3:4,5,6:a

7,8:9,10:b
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(subprocess, "run", offline)  # the network is never reached, cached or not
    return tmp_path / "cache"


def offline(command, **kwargs):
    return subprocess.CompletedProcess(command, 1, "", "ERROR: Could not find a version (network unreachable)")


def test_the_parser_reads_cases_of_different_lengths():
    cases = parse_ts(SMALL, "tiny.ts")
    assert cases.problem == "Tiny" and cases.class_labels == ("a", "b") and cases.labels == ("a", "b")
    np.testing.assert_array_equal(cases.values[0], [[1, 4], [2, 5], [3, 6]])  # (T, F): steps by dimensions
    np.testing.assert_array_equal(cases.values[1], [[7, 9], [8, 10]])


@pytest.mark.parametrize(
    "change, message",
    [
        (("1,2,3:4,5,6:a", "1,2,3:a"), "line 9: 1 dimensions and a label, but @dimensions says 2"),
        (("7,8:9,10:b", "7,8:9,10:c"), r"line 11: class label 'c' is not one of"),
        (("1,2,3:4,5,6:a", "1,x,3:4,5,6:a"), "line 9: a value is not a number"),
        (("1,2,3:4,5,6:a", "1,2,3:4,5:a"), "line 9: the dimensions of one case differ in length"),
        (("1,2,3:4,5,6:a", "1,2,nan:4,5,6:a"), "line 9: a value is not finite"),
        (("@data\n1,2,3:4,5,6:a\n\n7,8:9,10:b\n", ""), "has no @data line"),
        (("@classLabel true a b\n", ""), "has no @classlabel header"),
        (("@timeStamps false", "@timeStamps true"), "@timestamps true is not supported"),
        (("@equalLength false", "@equalLength true"), "says @equalLength true, but its cases differ"),
        (("@dimensions 2", "@dimensions two"), "@dimensions must be a positive whole number"),
        (("@classLabel true a b", "@classLabel false"), "@classLabel must be 'true' followed by"),
        (("# a comment", "1,2:3,4:a"), "line 1: a case comes before @data"),
    ],
)
def test_a_malformed_file_is_refused_with_its_line(change, message):
    with pytest.raises(ValueError, match=message):
        parse_ts(SMALL.replace(*change), "tiny.ts")


def test_an_archive_without_the_files_is_refused(tmp_path):
    path = make_vowels_sdist(tmp_path / "sktime-1.2.0.tar.gz", {FILES["train"]: ts_file("train")})
    with pytest.raises(ValueError, match="holds no .*JapaneseVowels_TEST.ts: give the sktime==1.2.0 sdist"):
        load_japanese_vowels(path)
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ValueError, match="is damaged"):
        load_japanese_vowels(path)


def test_empty_cache_and_no_registry_names_the_command_to_run(cache):
    with pytest.raises(ValueError) as error:
        load_dataset("japanese_vowels")
    message = str(error.value)
    assert "could not be downloaded (ERROR: Could not find a version" in message
    assert f"pip download --no-deps --no-binary :all: sktime==1.2.0 -d {cache / 'japanese_vowels'}" in message


def test_padded_at_the_end_masked_and_the_published_test_split_kept(cache):
    cache_vowels_sdist(cache)
    data = load_dataset("japanese_vowels")
    published = load_japanese_vowels()
    train, val, test = (data.splits[k] for k in ("train", "val", "test"))
    assert (len(train), len(val), len(test)) == (9, 3, 6)  # one of every speaker's 4 validates (20 %)
    assert data.input_shape == (7, 12) and data.lookback == 7  # padded to the longest utterance
    assert data.classes == ("speaker 1", "speaker 2", "speaker 3") and data.target == "speaker"
    assert data.features == tuple(f"lpc{i}" for i in range(1, 13))
    assert set(data.units.values()) == {"LPC cepstrum coefficient"}
    # The test split is the test file, in its order; every case's real frames, then zeros, masked.
    np.testing.assert_array_equal(test.mask.sum(axis=1), LENGTHS["test"])
    for i, case in enumerate(published["test"].values):
        np.testing.assert_allclose(test.x[i, : len(case)], case, rtol=1e-6)
        assert not test.x[i, len(case) :].any() and test.mask[i, : len(case)].all()
    np.testing.assert_array_equal(test.y, [0, 1, 2, 0, 1, 2])
    assert sorted(np.concatenate([train.mask.sum(1), val.mask.sum(1)])) == sorted(LENGTHS["train"])
    assert sorted(val.y) == [0, 1, 2] and np.bincount(train.y).tolist() == [3, 3, 3]  # stratified
    # The scaler sees the real training frames only, never the padding.
    real = train.x[train.mask]
    np.testing.assert_allclose(data.scaler.mean, real.mean(axis=0), rtol=1e-5)
    assert len(data.frame) == int(sum(LENGTHS["train"]) + sum(LENGTHS["test"]))  # the frame has no padding rows


def test_the_seed_draws_another_validation_set(cache):
    cache_vowels_sdist(cache)
    a, b = load_dataset("japanese_vowels", seed=0), load_dataset("japanese_vowels", seed=3)
    assert not np.array_equal(a.splits["val"].x, b.splits["val"].x)
    np.testing.assert_array_equal(a.splits["test"].x, b.splits["test"].x)
    np.testing.assert_array_equal(a.splits["val"].x, load_dataset("japanese_vowels", seed=0).splits["val"].x)


def test_the_data_page_frame_has_one_row_per_real_frame(cache):
    cache_vowels_sdist(cache)
    frame = get_dataset("japanese_vowels").frame()
    assert list(frame.columns) == [f"lpc{i}" for i in range(1, 13)] + ["speaker"]
    assert frame.groupby(level="sample").size().tolist() == LENGTHS["train"] + LENGTHS["test"]


@pytest.mark.slow  # fetches the 36 MB sktime sdist into the user's cache once
def test_the_real_files_hold_the_published_utterances():
    published = load_japanese_vowels(fetch_sktime())
    train, test = published["train"], published["test"]
    assert (len(train.values), len(test.values)) == (270, 370)
    lengths = [len(v) for v in train.values + test.values]
    assert (min(lengths), max(lengths)) == (7, 29)
    assert {v.shape[1] for v in train.values + test.values} == {12}
    assert train.class_labels == tuple("123456789") and train.problem == "JapaneseVowels"
    assert np.unique(train.labels, return_counts=True)[1].tolist() == [30] * 9
