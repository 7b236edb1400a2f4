import pytest

from seqlab.data import get_dataset, load_dataset
from seqlab.data.ding_en_de import ENVIRONMENT, example_pairs

# Lines in the format of Debian's /usr/share/trans/de-en (trans-de-en 1.9).
LINES = """\
# Version :: devel 2023-01-30
Abschied {m} | Abschied nehmen | Er verabschiedete sich. :: leave | to take leave | He took leave.
Absicht {f} | Das war nicht meine Absicht. :: intention | Such was not my intention.
Abhilfe {f} | Da ist nicht alles verloren.; Da ist Abhilfe möglich. :: remedy | He / It is not without remedy.
Ablösung {f} | Ich muss warten, bis meine Ablösung kommt. :: relief
Feuer {n} | Haben Sie Feuer? [ugs.] :: fire | Do you have a light? [coll.]
Aalfang {m} :: eel fishing
Ja. :: Yes.
Ich lese. :: I read.
Du liest. :: You read.
Sie liest. :: She reads.
Wir lesen. :: We read.
Ihr lest. :: You all read.
Sie lesen. :: They read.
"""


def test_the_example_sentences_are_paired_english_to_german():
    frame = example_pairs(LINES, 1, 12)
    pairs = list(zip(frame["source"], frame["target"]))
    assert ("He took leave.", "Er verabschiedete sich.") in pairs
    assert ("He / It is not without remedy.", "Da ist nicht alles verloren.") in pairs  # first alternative
    assert ("Do you have a light?", "Haben Sie Feuer?") in pairs  # markers removed
    assert not any("Ablösung" in t for t in frame["target"])  # sub-entries that do not line up
    assert "Yes." not in set(example_pairs(LINES, 3, 12)["source"])  # too short
    assert frame["line"].iloc[0] == 2


def test_loaded_from_a_file_named_by_the_environment(tmp_path, monkeypatch):
    path = tmp_path / "de-en"
    path.write_text(LINES, encoding="utf-8")
    monkeypatch.setenv(ENVIRONMENT, str(path))
    data = load_dataset("ding_en_de", min_words=1, val_fraction=0.1, test_fraction=0.1)
    assert data.task == "translate" and data.tokenizer.kind == "word" and len(data.frame) == 11
    assert load_dataset("ding_en_de", dictionary=str(path), min_words=1, samples=10).frame.shape[0] == 10


def test_a_missing_file_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setenv(ENVIRONMENT, str(tmp_path / "absent"))
    with pytest.raises(ValueError, match="apt-get install trans-de-en"):
        load_dataset("ding_en_de")
    assert "apt-get install trans-de-en" in get_dataset("ding_en_de").description
