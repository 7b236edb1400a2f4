import io

import pytest

from seqlab.data.corpora import read_user_text
from seqlab.inputs import InputLimits


def test_a_text_file_becomes_a_corpus(tmp_path):
    path = tmp_path / "poem.txt"
    path.write_text("Shall I compare thee to a summer's day?\n", encoding="utf-8")
    corpus = read_user_text(path, context_length=8)
    assert corpus.text.startswith("Shall I") and corpus.title == "poem.txt"
    assert str(tmp_path) not in corpus.source  # the user's name for it, never the server path


def test_an_upload_keeps_its_name():
    upload = io.BytesIO("Grüß Gott\n".encode("utf-16"))  # UTF-16 with BOM is decoded
    upload.name = "greeting.txt"
    corpus = read_user_text(upload)
    assert corpus.text == "Grüß Gott\n" and corpus.title == "greeting.txt"


@pytest.mark.parametrize("content", [b"", b"  \n\t \n"])
def test_empty_or_whitespace_only_text_is_refused(content):
    with pytest.raises(ValueError, match="empty .*give a file with content"):
        read_user_text(content)


def test_a_text_shorter_than_the_context_is_refused():
    with pytest.raises(ValueError, match="has 5 characters, too few for a context of 10: give a text of at least 11"):
        read_user_text(b"hello", context_length=10)
    assert read_user_text(b"hello", context_length=4).characters == 5


def test_bad_context_length_and_limits_are_clear():
    with pytest.raises(ValueError, match="context_length must be an integer >= 1"):
        read_user_text(b"hello", context_length=0)
    with pytest.raises(ValueError, match="has 5 characters; the limit is 3"):
        read_user_text(b"hello", limits=InputLimits(max_chars=3))
    with pytest.raises(ValueError, match="not UTF-8"):
        read_user_text(b"caf\xe9 \xff\xfe\x80")
