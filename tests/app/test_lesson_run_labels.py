"""Runs of one model in a lesson are told apart on its chart by what sets them apart; a legend entry only beside
bars."""

import json
import shutil

from seqlab.app.run_table import comparison_figure, runs_table
from seqlab.plots import runs_comparison
from seqlab.runs import RunStore

MLP = "Windowed MLP (NARX-style)"  # the tiny trained run's model, by its title


def with_options(root, source, run_id: str, **model_options):
    """A copy of ``source`` whose spec has these model options (a lesson's second run of one model)."""

    def fill(folder):
        for item in source.path.iterdir():
            if item.name != "manifest.json":
                (shutil.copytree if item.is_dir() else shutil.copyfile)(item, folder / item.name)
        spec = json.loads((folder / "spec.json").read_text())
        spec["model_options"] = {**spec["model_options"], **model_options}
        (folder / "spec.json").write_text(json.dumps(spec))

    store = RunStore(root)
    store.write(run_id, fill)
    return store.read(run_id)


def test_two_runs_of_one_model_are_named_by_the_option_they_differ_in(trained_run, tmp_path):
    runs = [with_options(tmp_path, trained_run, "20261128-120000-sine-mlp-a", units=4),
            with_options(tmp_path, trained_run, "20261128-120001-sine-mlp-b", units=8)]
    fig = comparison_figure(runs_table(runs), "t")
    assert list(fig.data[0].x) == [f"{MLP} · units=4", f"{MLP} · units=8"]  # not "{MLP} · 20261128-120000" twice


def test_runs_alike_in_every_option_are_told_apart_by_their_ids(trained_run, tmp_path):
    ids = ["20261128-120000-sine-mlp-a", "20261128-120000-sine-mlp-b"]  # trained in the same second
    runs = [with_options(tmp_path, trained_run, run_id) for run_id in ids]
    assert list(comparison_figure(runs_table(runs), "t").data[0].x) == [f"{MLP} · {i}" for i in ids]


def test_a_legend_entry_only_where_its_bars_are():
    fig = runs_comparison(["a", "b"], [0.2, 0.3], [float("nan")] * 2)  # no baseline scored
    assert [t.name for t in fig.data] == ["model"]
    assert [t.name for t in runs_comparison(["a"], [0.2], [0.4]).data] == ["model", "best baseline"]
