import hashlib

import pytest

from seqlab.app.uploads.upload import UPLOADS
from seqlab.cli import dataset_spec
from seqlab.data import get_dataset, load_dataset
from seqlab.data.pinned_file import FILE_DEFAULTS
from seqlab.data.user_pairs import parse_pairs, store_pairs

GOOD = "".join(f"word {i}\tWort {i}\tCC-BY tatoeba #{i}\n" for i in range(30))


def test_a_good_file_loads_as_translation_data(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("\n" + GOOD, encoding="utf-8")
    data = load_dataset("pairs", path=str(path), max_source_tokens=5)
    assert data.task == "translate" and len(data.frame) == 30 and data.frame["line"].iloc[0] == 2
    assert data.frame["source"].iloc[0] == "word 0" and data.frame["target"].iloc[0] == "Wort 0"
    assert any("Left out the third and later tab-separated columns of 30 lines" in n for n in data.notes)
    assert any("sources are longer than max_source_tokens = 5" in n for n in data.notes)  # trimmed, said


@pytest.mark.parametrize(
    "text, message",
    [
        ("a\tb\nno tab here\nc\td\nnor here\n", "lines 2, 4 have no tab between source and target"),
        ("a\tb\n\tonly target\nsource only\t \n", "lines 2, 3 have an empty source or target"),
        ("a\tb\nx\n\ty\n", "line 2 has no tab between source and target; line 3 has an empty source"),
        ("\n \n\n", "holds no pairs"),
    ],
)
def test_bad_lines_are_named(text, message):
    with pytest.raises(ValueError, match=message):
        parse_pairs(text, "mine.tsv")


def test_an_empty_file_is_refused_through_the_input_module(tmp_path):
    path = tmp_path / "empty.tsv"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        load_dataset("pairs", path=str(path))
    with pytest.raises(ValueError, match="needs a file"):
        load_dataset("pairs")


def test_an_upload_is_checked_stored_and_pinned(tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_CACHE", str(tmp_path / "cache"))
    with pytest.raises(ValueError, match="line 1 has no tab"):
        store_pairs(b"no tab\n", "bad.tsv")
    options = store_pairs(GOOD.encode("utf-16"), "mine.tsv")
    assert options["file_name"] == "mine.tsv" and options["sha256"] == hashlib.sha256(GOOD.encode("utf-16")).hexdigest()
    assert load_dataset("pairs", **options).frame["target"].iloc[1] == "Wort 1"


def test_the_command_line_and_the_upload_name_the_file(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text(GOOD, encoding="utf-8")
    spec = dataset_spec(f"pairs:{path}", "gru")
    assert spec.dataset == "pairs" and spec.data_options["file_name"] == "pairs.tsv"
    import seqlab.app.uploads.pairs_upload  # noqa: F401  registers the upload

    assert set(UPLOADS.get("pairs").options) == set(FILE_DEFAULTS) <= set(get_dataset("pairs").defaults)


def test_a_file_of_invisible_characters_only_is_refused(tmp_path):
    # Zero-width spaces, word joiners and Hangul fillers survive str.strip, yet show nothing: once they trained.
    path = tmp_path / "blank.tsv"
    path.write_text("\u200b\t\u200b\n" * 20 + "\u3164\t\u2060\u00a0\n" * 20, encoding="utf-8")
    with pytest.raises(ValueError, match=r"lines 1, 2, .* \(40 lines\) have an empty source or target"):
        load_dataset("pairs", path=str(path))
