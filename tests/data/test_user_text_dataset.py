import hashlib
import io

import pytest

from seqlab.data import load_dataset
from seqlab.data.pinned_file import file_options
from seqlab.data.text_windows import split_ids
from seqlab.data.user_text_dataset import store_user_text

TEXT = "To be, or not to be, that is the question.\n" * 5


@pytest.fixture
def poem(tmp_path):
    path = tmp_path / "hamlet.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


def test_a_file_is_pinned_by_its_hash_and_trains_with_the_fixed_split(poem):
    options = file_options(poem)
    assert options == {"path": str(poem.resolve()), "sha256": hashlib.sha256(TEXT.encode()).hexdigest(),
                       "file_name": "hamlet.txt"}
    data = load_dataset("text", **options, lookback=4, stride=4)
    cut = int(0.9 * len(TEXT))
    assert data.tokenizer.decode(split_ids(data, "val").tolist()) == TEXT[cut:]
    assert data.options["sha256"] == options["sha256"] and data.options["file_name"] == "hamlet.txt"


def test_a_changed_file_is_refused(poem):
    options = file_options(poem)
    poem.write_text(TEXT.upper(), encoding="utf-8")
    with pytest.raises(ValueError, match="'hamlet.txt' changed since this spec was made"):
        load_dataset("text", **options, lookback=4)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "needs a file: upload a .txt"),
        ({"path": "hamlet.txt", "sha256": "abc"}, "sha256 must be 64 lowercase hex digits"),
        ({"path": "https://example.org/a.txt"}, "local"),
    ],
)
def test_missing_or_bad_file_options_say_what_to_give(options, message):
    with pytest.raises(ValueError, match=message):
        load_dataset("text", **options)


def test_too_short_for_the_context_is_a_clear_error(poem):
    with pytest.raises(ValueError, match="too short for a context of 64"):
        load_dataset("text", **file_options(poem), lookback=64)


def test_an_upload_is_kept_under_its_hash_in_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_CACHE", str(tmp_path / "cache"))
    upload = io.BytesIO(TEXT.encode("utf-16"))
    options = store_user_text(upload, "../secret/hamlet.txt", context_length=8)
    digest = hashlib.sha256(TEXT.encode("utf-16")).hexdigest()
    assert options == {"path": str(tmp_path / "cache" / "uploads" / f"{digest}.txt"), "sha256": digest,
                       "file_name": "hamlet.txt"}
    data = load_dataset("text", **options, lookback=4)  # the stored copy, decoded like the upload
    assert data.tokenizer.decode(split_ids(data, "train").tolist()) == TEXT[: int(0.9 * len(TEXT))]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"  \n", "empty"),
        (b"\x00\x01\x02\x03 binary \x00\x9f\x80" * 4, "'bad.txt'"),
        (b"short", "'bad.txt' has 5 characters, too few for a context of 8"),
    ],
)
def test_a_bad_upload_is_refused_and_not_kept(tmp_path, monkeypatch, content, message):
    monkeypatch.setenv("SEQLAB_CACHE", str(tmp_path / "cache"))
    with pytest.raises(ValueError, match=message):
        store_user_text(content, "bad.txt", context_length=8)
    assert not list((tmp_path / "cache").rglob("*.txt"))
