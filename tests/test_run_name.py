"""A run's name: checked, written atomically outside the signature, shown by the CLI; old runs have none."""

import json

import pytest

from seqlab.cli import main
from seqlab.manifest import verify_folder
from seqlab.run_name import MAX_LENGTH, NAME_FILE, check_name
from seqlab.runs import RunStore
from seqlab.scratch import STORE_MARK
from seqlab.training import ExperimentSpec, run_experiment
from tests.cli_store import copy_run


@pytest.fixture
def store(tmp_path, trained_run):
    copy_run(tmp_path / "runs", trained_run, "one")
    return RunStore(tmp_path / "runs")


def test_a_name_is_stripped_and_a_blank_one_is_none():
    assert check_name("  lstm 64 units, lr 1e-3 ") == "lstm 64 units, lr 1e-3"
    assert check_name("   ") is None and check_name(None) is None
    assert check_name("é" * MAX_LENGTH) == "é" * MAX_LENGTH
    assert check_name("family 👨‍👩‍👧") == "family 👨‍👩‍👧"  # the zero-width joiners of an emoji are kept


@pytest.mark.parametrize("name, message", [
    ("x" * (MAX_LENGTH + 1), "at most 80 characters"),
    ("two\nlines", "control characters; character 4 is '\\n'"),
    ("tab\there", "control characters"),
    ("abc\u202edcba", "RIGHT-TO-LEFT OVERRIDE"),
    (42, "must be text"),
])
def test_a_bad_name_is_refused_naming_the_problem(name, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("\\n", r"\\n")):
        check_name(name)


def test_rename_round_trips_and_keeps_the_run_signed(store):
    assert store.read("one").name is None  # a run written before names: no name, still readable
    store.rename("one", "lstm 64 units, lr 1e-3")
    run = store.read("one")
    assert run.name == "lstm 64 units, lr 1e-3"
    assert verify_folder(run.path) is None  # the name is outside the signature: the run is still trusted
    assert not [p for p in store.root.iterdir() if p.name.startswith(".") and p.name != STORE_MARK]  # staging gone
    store.rename("one", "")
    assert store.read("one").name is None


def test_a_bad_rename_changes_nothing(store):
    store.rename("one", "first")
    with pytest.raises(ValueError, match="control characters"):
        store.rename("one", "evil\x1b[31m")
    with pytest.raises(ValueError, match="Unknown run"):
        store.rename("two", "x")
    assert store.read("one").name == "first"


def test_a_damaged_name_file_makes_the_run_broken_with_the_reason(store):
    (store.root / "one" / NAME_FILE).write_text(json.dumps({"name": "a\nb"}))
    assert "name.json: A run's name cannot hold control characters" in store.broken()["one"]
    (store.root / "one" / NAME_FILE).write_text("[1]")
    assert "must hold" in store.broken()["one"]


def test_a_run_trained_with_a_name_carries_it(tmp_path):
    spec = ExperimentSpec("sine", "mlp", {"length": 300, "lookback": 8, "horizon": 2},
                          {"units": 4, "layers": 1}, epochs=1, batch_size=128)
    with pytest.raises(ValueError, match="at most 80"):  # before any training
        run_experiment(spec, store=RunStore(tmp_path), name="x" * 81, savedmodel=False)
    assert not any(tmp_path.iterdir())
    run = run_experiment(spec, store=RunStore(tmp_path), name="mlp, tiny", savedmodel=False)
    assert run.name == "mlp, tiny" and verify_folder(run.path) is None


def test_cli_trains_a_named_run_and_lists_the_name(capsys, runs_dir):
    code = main(["train", "--dataset", "sine", "--model", "mlp", "--epochs", "1", "--name", "tiny mlp, lr 1e-3",
                 "--set", "length=300", "--set", "lookback=8", "--set", "horizon=2", "--set", "units=4", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out.strip().splitlines()[-1])["name"] == "tiny mlp, lr 1e-3"
    assert main(["runs"]) == 0
    assert "'tiny mlp, lr 1e-3'" in capsys.readouterr().out
    assert main(["runs", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["name"] == "tiny mlp, lr 1e-3"


def test_cli_refuses_a_bad_name_before_training(capsys, runs_dir):
    code = main(["train", "--dataset", "sine", "--model", "mlp", "--name", "a\tb"])
    assert code == 2 and "control characters" in capsys.readouterr().err
    assert not runs_dir.exists() or not any(runs_dir.iterdir())
