"""Translation pairs on the Data page: a built-in dataset's preview, and the user's own tab-separated file."""

from tests.app.conftest import texts


def test_a_translation_dataset_shows_its_pairs_as_encoded(open_page):
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value("toy_pairs").run()
    assert not at.exception and not at.error
    lengths, pairs = at.dataframe[-2].value, at.dataframe[-1].value
    assert list(lengths.index) == ["train", "val", "test"] and lengths.loc["test", "pairs"] == 500
    assert (pairs["target (as the decoder writes it)"].str.endswith("[EOS]")).all()
    assert (pairs["source (as the encoder reads it)"] == pairs["source"]).all()


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
