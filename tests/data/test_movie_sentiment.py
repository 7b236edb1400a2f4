import hashlib
import io
import subprocess
import tarfile

import numpy as np
import pytest

from seqlab.data import get_dataset, load_dataset
from seqlab.data.corpora import movie_reviews
from seqlab.data.corpora.movie_reviews import ARCHIVE, SENTENCES, fetch_vader, load_movie_reviews, parse_ratings
from seqlab.text import PAD_ID

SDIST = "vaderSentiment-3.3.2.tar.gz"
WORDS = ("dull", "awful", "tedious", "superb", "moving", "clever")  # negative, then positive


def lines(n=200):
    """``n`` rated sentences in the real file's format (CRLF, tabs, no final line end), one in 20 rated 0."""
    rows = []
    for i in range(1, n + 1):
        rating = 0.0 if i % 20 == 0 else (1.5 if i % 2 else -1.26666666667)
        word = WORDS[(i % 2) * 3 + i % 3]
        rows.append(f"{i}\t{rating}\tThe film is {word} , number {i} .")
    return "\r\n".join(rows)


def tar_gz(members):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def make_vader(path, text=None, inner_members=None):
    """A tarball with the layout of the vaderSentiment==3.3.2 sdist and its nested archive."""
    inner = tar_gz(inner_members or {SENTENCES: (lines() if text is None else text).encode("utf-8")})
    path.write_bytes(tar_gz({ARCHIVE: inner, "vaderSentiment-3.3.2/README.rst": b"not data"}))
    return path


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(subprocess, "run", offline)  # the network is never reached, cached or not
    return tmp_path / "cache" / "movie_sentiment"


def offline(command, **kwargs):
    return subprocess.CompletedProcess(command, 1, "", "ERROR: Could not find a version (network unreachable)")


def cached(cache, **kwargs):
    cache.mkdir(parents=True, exist_ok=True)
    return make_vader(cache / SDIST, **kwargs)


def test_the_parser_reads_the_real_format():
    table = parse_ratings("1\t2.26666666667\tThe Rock is destined .\r\n2\t-0.6\tEffective but\ttepid\r\n\r\n3\t0\tFine")
    assert table["id"].tolist() == ["1", "2", "3"]
    assert table["rating"].tolist() == pytest.approx([2.26666666667, -0.6, 0.0])
    assert table["text"].tolist() == ["The Rock is destined .", "Effective but\ttepid", "Fine"]


@pytest.mark.parametrize("text", ["1\t2.0\n2\tgood film", "1\tnan\tgood", "1\tgood\tfilm"])
def test_a_malformed_line_is_refused_with_its_number(text):
    with pytest.raises(ValueError, match="line [12], is not 'ID<TAB>rating<TAB>sentence'"):
        parse_ratings(text)


def test_reads_the_nested_archive_of_the_sdist(tmp_path):
    table = load_movie_reviews(make_vader(tmp_path / SDIST))
    assert len(table) == 200 and table["text"][0] == "The film is moving , number 1 ."


@pytest.mark.parametrize(
    "inner, message",
    [({"hutto_ICWSM_2014/other.txt": b"x"}, "holds no hutto_ICWSM_2014/movieReviewSnippets"), (None, "is damaged")],
)
def test_a_wrong_or_damaged_tarball_is_refused(tmp_path, inner, message):
    path = make_vader(tmp_path / SDIST, inner_members=inner)
    if inner is None:
        path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ValueError, match=message):
        load_movie_reviews(path)


def test_empty_cache_and_no_registry_names_the_command_to_run(cache):
    with pytest.raises(ValueError) as error:
        load_dataset("movie_sentiment")
    message = str(error.value)
    assert "could not be downloaded (ERROR: Could not find a version" in message
    assert f"-m pip download --no-deps --no-binary :all: vaderSentiment==3.3.2 -d {cache}" in message


def test_a_download_is_checked_and_then_read_from_the_cache(cache, monkeypatch):
    def downloads(command, **kwargs):
        assert "vaderSentiment==3.3.2" in command and "--no-binary" in command
        make_vader(cache / SDIST)
        return subprocess.CompletedProcess(command, 0, "Saved", "")

    monkeypatch.setattr(subprocess, "run", downloads)
    with pytest.raises(ValueError, match="SHA-256 differs"):
        fetch_vader()
    assert not (cache / SDIST).exists()
    made = make_vader(cache / SDIST).read_bytes()
    (cache / SDIST).unlink()
    monkeypatch.setattr(movie_reviews, "SHA256", hashlib.sha256(made).hexdigest())
    assert fetch_vader() == cache / SDIST
    monkeypatch.setattr(subprocess, "run", offline)  # cached now: never asked again
    assert len(load_movie_reviews()) == 200


def test_labels_by_the_sign_of_the_rating_and_zeros_dropped(cache):
    cached(cache)
    data = load_dataset("movie_sentiment")
    ratings = load_movie_reviews()
    rated = ratings[ratings["rating"] != 0]
    assert len(data.frame) == len(rated) == 190
    assert data.frame["label"].tolist() == ["positive" if r > 0 else "negative" for r in rated["rating"]]
    assert data.classes == ("negative", "positive")
    assert any("Dropped the 10 sentences rated exactly 0" in note for note in data.notes)


def test_the_classification_contract(cache):
    cached(cache)
    data = load_dataset("movie_sentiment", max_tokens=6, val_fraction=0.2, test_fraction=0.2)
    assert (data.task, data.features, data.target, data.horizon, data.units) == ("classify", ("text",), "label", 1, {})
    assert data.lookback == 6 and data.options["max_tokens"] == 6 and data.options["embedding_dim"] == 32
    total = 0
    for split in data.splits.values():
        n = len(split)
        total += n
        assert split.x.shape == split.mask.shape == (n, 6) and split.y.shape == (n,)
        assert split.x.dtype == np.int32 and split.mask.dtype == bool and split.y.dtype.kind == "i"
        assert (split.x[~split.mask] == PAD_ID).all() and (split.x[split.mask] != PAD_ID).all()
        assert split.mask[:, 0].all()  # padding at the end
        assert set(np.unique(split.y)) == {0, 1}  # stratified: both classes in every split
        rows = data.frame.iloc[split.origin]
        assert [data.classes[c] for c in split.y] == rows["label"].tolist()
    assert total == len(data.frame) and sorted(len(data.splits[s]) for s in ("val", "test")) == [38, 38]
    # "The film is dull , number 1 ." is 8 words: every sentence is trimmed to its first 6 tokens.
    assert any(note.startswith("190 of 190 texts are longer than max_tokens = 6") for note in data.notes)
    first = data.frame["text"][data.splits["train"].origin[0]]
    assert data.tokenizer.decode(data.splits["train"].x[0]) == " ".join(first.lower().split()[:6])


def test_the_tokenizer_is_fitted_on_the_training_sentences_only(cache):
    cached(cache)
    data = load_dataset("movie_sentiment")
    train = set(" ".join(data.frame["text"][data.splits["train"].origin]).lower().split())
    held_out = set(" ".join(data.frame["text"][data.frame["split"] != "train"]).lower().split())
    assert set(data.tokenizer.vocab[2:]) == train
    assert held_out - train  # numbers seen only in validation or test are [UNK]


def test_the_split_is_fixed_by_its_seed(cache):
    cached(cache)
    a, b = load_dataset("movie_sentiment"), load_dataset("movie_sentiment")
    c = load_dataset("movie_sentiment", seed=1)
    assert (a.splits["test"].origin == b.splits["test"].origin).all()
    assert not (a.splits["test"].origin == c.splits["test"].origin).all()


def test_described_like_every_dataset():
    info = get_dataset("movie_sentiment")
    assert info.task == "classify" and "vaderSentiment==3.3.2" in info.source and "Pang & Lee" in info.source
    assert "MIT" in info.licence and "Hutto & Gilbert" in info.licence
    assert info.defaults["max_tokens"] == 64 and info.defaults["tokenizer"] == "word"
