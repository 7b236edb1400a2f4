"""Translation pairs on the Data page: a built-in dataset's preview, and the user's own tab-separated file."""

import pytest

from tests.app.conftest import texts


def test_a_translation_dataset_shows_its_pairs_as_encoded(open_page):
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value("toy_pairs").run()
    assert not at.exception and not at.error
    lengths, pairs = at.dataframe[-2].value, at.dataframe[-1].value
    assert list(lengths.index) == ["train", "val", "test"] and lengths.loc["test", "pairs"] == 500
    assert (pairs["target (as the decoder writes it)"].str.endswith("[EOS]")).all()
    assert (pairs["source (as the encoder reads it)"] == pairs["source"]).all()


@pytest.mark.parametrize("name", ["numbers_en_de", "dates", "digit_names"])
def test_every_built_in_translation_dataset_shows_its_pairs(open_page, name):
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value(name).run()
    assert not at.exception and not at.error
    lengths, pairs = at.dataframe[-2].value, at.dataframe[-1].value
    assert list(lengths.index) == ["train", "val", "test"]
    assert (pairs["target (as the decoder writes it)"].str.endswith("[EOS]")).all()


def test_the_dictionary_pairs_say_how_to_install_them_when_missing(open_page, monkeypatch, tmp_path):
    monkeypatch.setenv("SEQLAB_DING_FILE", str(tmp_path / "missing"))
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value("ding_en_de").run()
    assert not at.exception and "apt-get install trans-de-en" in texts(at.error)


def test_the_data_page_takes_a_pairs_file_and_names_bad_lines(open_page):
    good = "".join(f"word {i}\tWort {i}\n" for i in range(30)).encode()
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value("pairs").run()
    assert not at.exception and "Upload a tab-separated file" in texts(at.info)
    at.file_uploader(key="data.upload.pairs").set_value(("mine.tsv", good, "text/tab-separated-values")).run()
    assert not at.exception and not at.error
    assert at.dataframe[-1].value["source"].str.startswith("word ").all()
    bad = b"a\tb\nno tab\n\tempty source\n"
    at.file_uploader(key="data.upload.pairs").set_value(("bad.tsv", bad, "text/tab-separated-values")).run()
    assert not at.exception and "line 2 has no tab between source and target; line 3 has an empty" in texts(at.error)
