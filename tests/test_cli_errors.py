"""Every error path of the CLI: exit code 2 and one line on stderr starting with ``error:``, never a traceback."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from seqlab.cli import main
from tests.cli_store import copy_run

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def place(tmp_path, trained_run):
    """A run store with one run ``good`` (sine, forecast from ``y``), and a few files beside it."""
    store = tmp_path / "store"
    copy_run(store, trained_run, "good")
    pd.DataFrame({"y": np.sin(np.arange(60) / 8.0)}).to_csv(tmp_path / "recent.csv", index=False)
    (tmp_path / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    (tmp_path / "existing.zip").write_bytes(b"x")
    (tmp_path / "a_file").write_text("not a folder")
    (tmp_path / "folder").mkdir()
    return tmp_path


CASES = {
    "unknown run (export)": (["export", "nope", "--format", "zip", "--to", "{tmp}/out.zip"], "Unknown run"),
    "unknown run (predict)": (["predict", "nope", "--input", "{tmp}/recent.csv"], "Unknown run"),
    "unknown run (delete)": (["delete", "nope", "--yes"], "Unknown run"),
    "run id ../x (export)": (["export", "../x", "--format", "zip", "--to", "{tmp}/out.zip"], "not a run id"),
    "run id ../x (delete)": (["delete", "../x", "--yes"], "not a run id"),
    "absolute run id": (["predict", "/etc", "--input", "{tmp}/recent.csv"], "not a run id"),
    "missing input file": (["predict", "good", "--input", "{tmp}/missing.csv"], "missing.csv"),
    "a folder as input": (["predict", "good", "--input", "{tmp}/folder"], "folder"),
    "a non-CSV input": (["predict", "good", "--input", "{tmp}/picture.png"], "picture.png"),
    "export to an existing path": (["export", "good", "--format", "zip", "--to", "{tmp}/existing.zip"],
                                   "already exists"),
    "export into the runs folder": (["export", "good", "--format", "zip", "--to", "{tmp}/store/good/x.zip"],
                                    "inside the runs folder"),
    "export keras to another suffix": (["export", "good", "--format", "keras", "--to", "{tmp}/m.h5"], ".keras"),
    "export below a file (OSError)": (["export", "good", "--format", "zip", "--to", "{tmp}/a_file/x.zip"],
                                      "a_file"),
    "runs-dir is a file (runs)": (["runs", "--runs-dir", "{tmp}/a_file"], "is a file"),
    "runs-dir is a file (delete)": (["delete", "good", "--yes", "--runs-dir", "{tmp}/a_file"], "is a file"),
    "runs-dir is a file (train)": (["train", "--dataset", "sine", "--model", "mlp", "--runs-dir", "{tmp}/a_file"],
                                   "is a file"),
    "delete without a terminal": (["delete", "good"], "add --yes"),
    "text for a number": (["train", "--dataset", "sine", "--model", "mlp", "--set", "units=many"], "units"),
    "a list for a number": (["train", "--dataset", "sine", "--model", "mlp", "--set", "units=[1,2]"], "units"),
    "an infinite number": (["train", "--dataset", "sine", "--model", "mlp", "--set", "learning_rate=1e999"],
                           "learning_rate"),
    "an empty key": (["train", "--dataset", "sine", "--model", "mlp", "--set", "=3"], "KEY=VALUE"),
    "epochs twice, disagreeing": (["train", "--dataset", "sine", "--model", "mlp", "--epochs", "3",
                                   "--set", "epochs=5"], "--epochs 3 and --set epochs=5 disagree"),
    "argparse: not an integer": (["train", "--dataset", "sine", "--model", "mlp", "--epochs", "three"],
                                 "invalid int value"),
    "argparse: unknown command": (["fly"], "invalid choice"),
    # Checked when parsed, before the run is read: greedy translation never reads the length penalty.
    "translate --length-penalty nan": (["translate", "good", "--text", "abc", "--length-penalty", "nan"],
                                       "length_penalty must be a finite number >= 0"),
    "generate --temperature inf": (["generate", "good", "--prompt", "the", "--temperature", "inf"],
                                   "temperature must be a finite number >= 0"),
    "argparse: missing run id": (["export", "--format", "zip", "--to", "x"], "required"),
    "forecast --samples 10**9": (["forecast", "good", "--strategy", "monte_carlo", "--samples", "1000000000"],
                                 "samples must lie in [1, 100000]"),
    "numbers to 10**9": (["train", "--dataset", "numbers_en_de", "--model", "seq2seq", "--set", "last=1000000000"],
                         "max_work_seconds"),
    "the largest HMM": (["train", "--dataset", "pydoc", "--model", "hmm", "--set", "characters=3000",
                         "--set", "states=256", "--set", "iterations=500"], "max_work_seconds"),
}


@pytest.mark.parametrize("argv, message", CASES.values(), ids=CASES.keys())
def test_error_exits_2_with_one_line(capsys, monkeypatch, place, argv, message):
    monkeypatch.setenv("SEQLAB_RUNS_DIR", str(place / "store"))
    monkeypatch.setattr(sys, "stdin", open(os.devnull))  # not a terminal
    argv = [a.format(tmp=place) for a in argv]
    try:
        code = main(argv)
    except SystemExit as exit_info:  # argparse's own errors
        code = exit_info.code
    out, err = capsys.readouterr()
    assert code == 2, err
    assert err.startswith("error: ") and message in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert (place / "store" / "good").is_dir()  # nothing was deleted on the way


def test_epochs_twice_agreeing_is_fine(capsys, runs_dir):
    from seqlab.cli import build_parser, training_overrides

    args = build_parser().parse_args(["train", "--dataset", "sine", "--model", "mlp", "--epochs", "3",
                                      "--set", "epochs=3"])
    assert training_overrides(args) == {"epochs": 3}


def test_an_untrusted_savedmodel_is_refused_unless_trusted(capsys, place):
    """A SavedModel is code: one seqlab did not sign here is loaded only with --trust."""
    run_dir = place / "store" / "good"
    manifest = run_dir / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"hmac_sha256": "', '"hmac_sha256": "0'))
    argv = ["predict", "good", "--input", str(place / "recent.csv"), "--runs-dir", str(place / "store")]
    code = main(argv)
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith("error: ") and "--trust" in err
    assert len(err.strip().splitlines()) == 1
    code = main(argv + ["--trust", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err


def test_a_broken_python_m_call_has_no_traceback(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "SEQLAB_RUNS_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "seqlab", "export", "../../etc", "--format", "zip", "--to", "x"],
                         capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert out.returncode == 2 and out.stderr.startswith("error: ") and "Traceback" not in out.stderr


DEEP = "[" * 100_000 + "]" * 100_000  # past Python's recursion limit: json.loads alone raises RecursionError

USING_A_RUN = {
    "generate": ["generate", "bad", "--prompt", "the"],
    "predict --text": ["predict", "bad", "--text", "a text"],
    "translate": ["translate", "bad", "--text", "a text"],
    "fill": ["fill", "bad", "--text", "a [MASK] text"],
    "export": ["export", "bad", "--format", "zip", "--to", "{tmp}/out.zip"],
}


@pytest.mark.parametrize("argv", USING_A_RUN.values(), ids=USING_A_RUN.keys())
def test_a_deeply_nested_manifest_is_one_error_line(capsys, place, argv):
    copy_run(place / "store", good_run(place), "bad")
    (place / "store" / "bad" / "manifest.json").write_text(DEEP)
    code = main([a.format(tmp=place) for a in argv] + ["--runs-dir", str(place / "store")])
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith("error: Run 'bad': manifest.json is unreadable"), err
    assert "nests arrays or objects more than 100 levels" in err and len(err.strip().splitlines()) == 1


def test_a_deeply_nested_file_is_a_broken_run_and_every_run_stays_deletable(capsys, place):
    store = place / "store"
    copy_run(store, good_run(place), "second")
    for name, file in (("bad-manifest", "manifest.json"), ("bad-history", "history.json")):
        copy_run(store, good_run(place), name)
        (store / name / file).write_text(DEEP)
    assert main(["runs", "--runs-dir", str(store)]) == 0
    out, err = capsys.readouterr()
    assert "good" in out and "second" in out
    assert "broken: bad-manifest: Run 'bad-manifest': manifest.json is unreadable" in err
    assert "broken: bad-history: Run 'bad-history': corrupt file: history.json nests" in err
    for name in ("good", "bad-manifest", "second", "bad-history"):
        assert main(["delete", name, "--yes", "--runs-dir", str(store)]) == 0, capsys.readouterr().err
        assert not (store / name).exists()


def test_a_deeply_nested_tokenizer_is_one_error_line(capsys, tmp_path, tiny_language_run):
    store = tmp_path / "store"
    shutil.copytree(tiny_language_run.path, store / "old")
    (store / "old" / "manifest.json").unlink()  # written before manifests: nothing checks the files' hashes
    (store / "old" / "tokenizer.json").write_text(DEEP)
    code = main(["generate", "old", "--prompt", "the", "--runs-dir", str(store)])
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith("error: ") and "tokenizer.json" in err and "nests" in err, err
    assert len(err.strip().splitlines()) == 1


def test_a_model_changed_in_place_is_broken_and_refused(capsys, place):
    model = place / "store" / "good" / "model.keras"
    raw = bytearray(model.read_bytes())
    raw[len(raw) // 2] ^= 0xFF  # same size
    model.write_bytes(bytes(raw))
    assert main(["runs", "--runs-dir", str(place / "store")]) == 0
    _, err = capsys.readouterr()
    assert "broken: good: Run 'good': model.keras was changed after seqlab wrote it" in err
    code = main(["predict", "good", "--input", str(place / "recent.csv"), "--runs-dir", str(place / "store")])
    _, err = capsys.readouterr()
    assert code == 2 and "model.keras was changed after seqlab wrote it" in err


def good_run(place):
    from seqlab.runs import RunStore

    return RunStore(place / "store").read("good")
