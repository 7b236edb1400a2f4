"""A run trained without its SavedModel (``train --no-savedmodel``, ``sweep --no-savedmodel``) reads back whole,
and gets its SavedModel when asked (``python -m seqlab export RUN_ID``), serving what its Keras model computes."""

import json

import numpy as np

from seqlab.cli import main
from seqlab.export import load_serving, usage_text
from seqlab.runs import RunStore

SINE = ["--dataset", "sine", "--model", "lstm"]
TINY = ["length=300", "lookback=12", "horizon=3", "epochs=1"]


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_run_trained_without_its_savedmodel_gets_it_when_asked(tmp_path, capsys):
    runs = tmp_path / "runs"
    code, out, err = cli(capsys, "train", *SINE, *[f"--set={s}" for s in TINY], "--set", "units=4",
                         "--no-savedmodel", "--json", "--runs-dir", str(runs))
    assert code == 0, err
    run_id = json.loads(out)["run_id"]
    run = RunStore(runs).read(run_id)
    assert not run.has_savedmodel and not run.savedmodel_path.exists() and run.meta.savedmodel_later
    assert f"python -m seqlab export {run_id}" in err  # the note says how to make it
    assert not RunStore(runs).scan()[1]  # whole, not "incomplete"
    code, _, err = cli(capsys, "export", run_id, "--format", "savedmodel", "--to", str(tmp_path / "out"),
                       "--runs-dir", str(runs))
    assert code != 0 and f"make it first with python -m seqlab export {run_id}" in err
    assert "trained without its SavedModel" in usage_text(run)  # the zip's USAGE.md says how to make it

    code, out, err = cli(capsys, "export", run_id, "--runs-dir", str(runs))
    assert code == 0, err
    assert f"wrote the SavedModel of {run_id}" in out
    [run], broken = RunStore(runs).scan()
    assert not broken and run.has_savedmodel  # signed anew: it verifies with its SavedModel
    shape = (2, *run.meta.input_shape)
    windows = np.sin(np.arange(np.prod(shape), dtype="float32")).reshape(shape)
    np.testing.assert_allclose(load_serving(run)(windows), run.load_model().predict(windows, verbose=0), atol=1e-5)
    code, _, err = cli(capsys, "export", run_id, "--runs-dir", str(runs))
    assert code != 0 and "already has a SavedModel" in err
    assert "trained without" not in usage_text(run)


def test_a_sweep_leaves_every_point_s_savedmodel_for_later(tmp_path, capsys):
    code, out, err = cli(capsys, "sweep", *SINE, *[f"--budget={s}" for s in TINY], "--grid", "units=2,3",
                         "--no-savedmodel", "--json", "--runs-dir", str(tmp_path))
    assert code == 0, err
    board = json.loads(out)["sweep"]
    assert sorted(point["name"] for point in board) == ["units=2", "units=3"]
    runs, broken = RunStore(tmp_path).scan()
    assert not broken and len(runs) == 2
    assert not any(run.has_savedmodel for run in runs) and all(run.meta.savedmodel_later for run in runs)
