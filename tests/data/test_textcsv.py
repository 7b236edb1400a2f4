import hashlib
import json

import numpy as np
import pandas as pd
import pytest

from seqlab.app.uploads.upload import UPLOADS
from seqlab.cli import main
from seqlab.data import get_dataset, load_dataset
from seqlab.data.pinned_file import FILE_DEFAULTS
from seqlab.data.user_text_classes import COLUMN_DEFAULTS
from seqlab.runs import RunStore

GOOD = ("a superb moving film", "clever and warm", "dull and tedious", "an awful mess", "it was fine", "so so")


def reviews(tmp_path, rows=60, name="reviews.csv", **columns):
    """A CSV of ``rows`` texts with a numeric ``stars`` column (1, 3, 5) and extra columns given."""
    texts = [f"{GOOD[i % 6]} number {i}" for i in range(rows)]
    stars = [(5, 5, 1, 1, 3, 3)[i % 6] for i in range(rows)]
    frame = pd.DataFrame({"id": range(rows), "review": texts, "stars": stars, **columns})
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def load(path, **options):
    return load_dataset("textcsv", **{"path": str(path), "text": "review", "label": "stars", **options})


def test_a_good_file_gives_the_classification_contract(tmp_path):
    data = load(reviews(tmp_path), max_tokens=4)
    assert data.task == "classify" and data.classes == ("1", "3", "5")  # numbers ordered as numbers
    assert data.options["text"] == "review" and data.options["label"] == "stars" and data.lookback == 4
    assert sum(len(s) for s in data.splits.values()) == 60 and len(data.splits["test"]) == 6
    for split in data.splits.values():
        assert split.x.shape == split.mask.shape == (len(split), 4) and split.x.dtype == np.int32
        assert set(np.unique(split.y)) == {0, 1, 2}
        assert [data.classes[c] for c in split.y] == data.frame["label"].iloc[split.origin].tolist()
    # Every text but "so so number i" is longer than 4 words.
    assert any(note.startswith("50 of 60 texts are longer than max_tokens = 4") for note in data.notes)


def test_word_labels_missing_labels_and_empty_texts(tmp_path):
    frame = pd.DataFrame({
        "review": ["good film"] * 20 + ["bad film"] * 20 + ["", "  ", "unlabelled"],
        "mood": ["pos"] * 20 + ["neg"] * 20 + ["pos", "neg", None],
    })  # fmt: skip
    frame.to_csv(tmp_path / "m.csv", index=False)
    data = load_dataset("textcsv", path=str(tmp_path / "m.csv"), text="review", label="mood")
    assert data.classes == ("neg", "pos") and len(data.frame) == 40
    assert "Dropped 1 of 43 rows without a label in 'mood'." in data.notes
    assert any(note.startswith("Dropped 2 of 42 rows whose text is empty") for note in data.notes)


def test_texts_of_unknown_words_only_load(tmp_path):
    frame = pd.DataFrame({"review": ["good"] * 20 + ["bad"] * 20 + ["zyx qwv"] * 2, "stars": [1, 2] * 21})
    frame.to_csv(tmp_path / "u.csv", index=False)
    data = load(tmp_path / "u.csv", seed=3)
    unknown = data.frame["text"] == "zyx qwv"
    assert unknown.sum() == 2 and len(data.tokenizer.encode("zyx qwv")) == 2


@pytest.mark.parametrize(
    "frame, options, message",
    [
        ({"review": ["a b"] * 20, "stars": [1, 2] * 10}, {"text": "body"},
         r"text: column 'body' is not in the file; its columns: \['review', 'stars'\]"),
        ({"review": ["a b"] * 20, "stars": [1, 2] * 10}, {"label": "class"}, "label: column 'class' is not in"),
        ({"review": ["a b"] * 20, "stars": [1, 2] * 10}, {"text": ""}, "Choose the column of texts"),
        ({"review": ["a b"] * 20, "stars": [1, 2] * 10}, {"label": "review"}, "the same column"),
        ({"review": ["a b"] * 20, "stars": [4] * 20}, {}, "label column 'stars' has one class only \\('4'"),
        ({"review": ["a b", ""] * 10, "stars": [1, 2] * 10}, {}, "has one class only \\('1'"),
        ({"review": ["", " ", "!"] * 10, "stars": [1, 2, 3] * 10}, {"strip_punctuation": True},
         "All 30 texts are empty"),
        ({"review": ["a b"] * 10, "stars": [None] * 10}, {}, "empty on every row"),
        ({"review": ["a b"] * 12, "stars": [1, 2] * 6}, {}, "Too few rows: 12 texts .*leave the val and test"),
    ],
)
def test_bad_input_is_refused_with_what_to_do(tmp_path, frame, options, message):
    pd.DataFrame(frame).to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ValueError, match=message):
        load(tmp_path / "bad.csv", **options)


def test_the_file_is_pinned_by_its_sha256(tmp_path):
    path = reviews(tmp_path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert len(load(path, sha256=digest, file_name="mine.csv").frame) == 60
    reviews(tmp_path, rows=61)
    with pytest.raises(ValueError, match="CSV file 'mine.csv' changed since this spec was made"):
        load(path, sha256=digest, file_name="mine.csv")


def test_without_a_file_the_message_says_how_to_give_one():
    with pytest.raises(ValueError, match="textcsv dataset needs a file: upload a .csv .* --dataset textcsv:PATH"):
        load_dataset("textcsv", text="review", label="stars")


def test_cli_pins_the_file_and_bad_input_exits_2(tmp_path, capsys, runs_dir):
    path = reviews(tmp_path)
    code = main(["train", "--dataset", f"textcsv:{path}", "--model", "gru",
                 "--set", "text=body", "--set", "label=stars"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "column 'body' is not in the file" in err and len(err.strip().splitlines()) == 1
    pd.DataFrame({"review": ["a b"] * 20, "stars": [7] * 20}).to_csv(tmp_path / "one.csv", index=False)
    code = main(["train", "--dataset", f"textcsv:{tmp_path / 'one.csv'}", "--model", "gru",
                 "--set", "text=review", "--set", "label=stars"])  # fmt: skip
    assert code == 2 and "one class only" in capsys.readouterr().err


def test_cli_trains_a_gru_on_a_tiny_file(tmp_path, capsys, runs_dir):
    path = reviews(tmp_path)
    code = main(["train", "--dataset", f"textcsv:{path}", "--model", "gru", "--epochs", "1", "--json",
                 "--set", "text=review", "--set", "label=stars",
                 "--set", "units=4", "--set", "max_tokens=8"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    result = json.loads(out.strip().splitlines()[-1])
    run = RunStore(runs_dir).read(result["run_id"])
    options = run.spec["data_options"]
    assert options["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest() and options["label"] == "stars"
    assert result["task"] == "classify" and "accuracy" in result["metrics"]
    assert (runs_dir / result["run_id"] / "tokenizer.json").is_file()


def test_described_and_offered_for_upload():
    info = get_dataset("textcsv")
    assert info.task == "classify" and set(FILE_DEFAULTS) | set(COLUMN_DEFAULTS) <= set(info.defaults)
    import seqlab.app.uploads.text_csv_upload  # noqa: F401  registers the upload

    assert set(UPLOADS.get("textcsv").options) == set(FILE_DEFAULTS) | set(COLUMN_DEFAULTS)
