"""Own CSV of labelled texts on the Data page: the upload and the guessed text and label columns."""

import pandas as pd

from tests.app.conftest import texts


def _file(frame) -> tuple[str, bytes, str]:
    return "reviews.csv", frame.to_csv(index=False).encode(), "text/csv"


def test_the_data_page_asks_for_a_csv_and_guesses_the_columns(open_page):
    frame = pd.DataFrame({
        "id": range(40),
        "review": [f"{('a superb moving film', 'dull and tedious')[i % 2]} number {i}" for i in range(40)],
        "stars": [5, 1] * 20,
    })  # fmt: skip
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value("textcsv").run()
    assert not at.exception and not at.error and "Upload a .csv file (one row per text" in texts(at.info)
    at.file_uploader(key="data.upload.textcsv").set_value(_file(frame)).run()
    assert not at.exception and not at.error
    # The guesses: the longest values are the texts, the fewest distinct values of the rest the labels.
    assert at.selectbox(key="data.upload.textcsv.text").value == "review"
    assert at.selectbox(key="data.upload.textcsv.label").value == "stars"
    # The preview: classes per split, and test sentences as the tokeniser reads them.
    balance, sentences = at.dataframe[-2].value, at.dataframe[-1].value
    assert list(balance.index) == ["1", "5"] and list(balance.columns) == ["train", "val", "test"]
    assert " number " in sentences.iloc[0, 0] and set(sentences["class"]) <= {"1", "5"}
    at.file_uploader(key="data.upload.textcsv").set_value(("one.csv", b"review\nfine\n", "text/csv")).run()
    assert not at.exception and "add a column with each text's class" in texts(at.error)
