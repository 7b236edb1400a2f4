"""Compare page: the empty state, overlaid curves, the best-first table, the leaderboard; its pure helpers."""

import json
import shutil

import numpy as np
import pandas as pd
import pytest

from tests.app.conftest import texts
from tests.cli_store import copy_run

PAGE = "pages/compare.py"


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory):
    """A tiny sine MLP and LSTM, trained once; and a copy of the MLP with a lower test MAE (the best run)."""
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    root = tmp_path_factory.mktemp("compare_runs")
    store = RunStore(root)
    data = {"length": 300, "lookback": 12, "horizon": 3}
    mlp = run_experiment(ExperimentSpec("sine", "mlp", data, {"units": 4, "layers": 1}, epochs=1, batch_size=64),
                         store=store, savedmodel=False)
    lstm = run_experiment(ExperimentSpec("sine", "lstm", data, {"units": 4}, epochs=1, batch_size=64), store=store,
                          savedmodel=False)
    metrics = json.loads((mlp.path / "metrics.json").read_text())
    metrics["model"]["mae"] = min(mlp.metrics["model"]["mae"], lstm.metrics["model"]["mae"]) / 2
    best = copy_run(root, mlp, "best-mlp", meta={"created": "2020-01-01T00:00:00+00:00"}, metrics=metrics)
    return {"mlp": mlp, "lstm": lstm, "best": best}


def copy_runs(runs_dir, *runs):
    runs_dir.mkdir(parents=True, exist_ok=True)
    for run in runs:
        shutil.copytree(run.path, runs_dir / run.run_id)


def runs_choice(at):
    return next(m for m in at.multiselect if m.label == "Runs")


def curves_spec(at) -> dict:
    return json.loads(at.get("plotly_chart")[0].proto.spec)


@pytest.mark.parametrize("count", [0, 1])
def test_fewer_than_two_runs_point_to_train(open_page, runs_dir, tiny_runs, count):
    copy_runs(runs_dir, *[tiny_runs["mlp"]][:count])
    at = open_page(PAGE)
    assert not at.exception
    assert "Train at least two runs to compare" in texts(at.markdown)
    assert not at.get("plotly_chart") and not at.dataframe


def test_compares_every_run_of_the_dataset(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, *tiny_runs.values())
    at = open_page(PAGE)
    assert not at.exception and not at.error
    ids = {r.run_id for r in tiny_runs.values()}
    assert set(runs_choice(at).value) == ids  # default: every run of the newest run's dataset

    spec = curves_spec(at)
    assert len(spec["data"]) == 3  # one line per chosen run
    assert all(any(i in trace["name"] for i in ids) for trace in spec["data"])
    assert spec["layout"]["yaxis"]["title"]["text"].startswith("MSE")
    assert spec["layout"]["xaxis"]["title"]["text"] == "epoch"

    table = at.dataframe[0].value
    assert list(table["run"])[0] == "best-mlp"
    assert table["test"].is_monotonic_increasing  # MAE: lowest first
    assert {"family", "params", "train s", "device", "budget"} <= set(table.columns)

    board = at.dataframe[1].value
    assert sorted(board["model"]) == sorted({t for t in table["model"]})  # one row per architecture
    assert board.loc[0, "run"] == "best-mlp" and list(board["rank"]) == [1, 2]
    assert (board["same budget as"] != "").all()  # both trained 1 epoch


def test_picking_runs_and_axes_redraws_the_curves(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, *tiny_runs.values())
    at = open_page(PAGE)
    runs_choice(at).unselect(tiny_runs["lstm"].run_id).run()
    assert not at.exception
    assert len(curves_spec(at)["data"]) == 2
    assert len(at.dataframe[0].value) == 2

    at.radio(key="compare.curves.x").set_value("elapsed").run()
    at.selectbox(key="compare.curves.metric").set_value("val_mae").run()
    spec = curves_spec(at)
    assert spec["layout"]["xaxis"]["title"]["text"] == "training time (s)"
    assert spec["layout"]["yaxis"]["title"]["text"] == "validation MAE"


def test_runs_deleted_under_the_dataset_filter_leave_the_page_working(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, tiny_runs["mlp"], tiny_runs["lstm"])
    for i, run_id in enumerate(("newer-a", "newer-b")):  # the newest runs, on another dataset
        copy_run(runs_dir, tiny_runs["mlp"], run_id, meta={"dataset": "zeta", "created": f"2030-01-01T00:00:0{i}"})
    at = open_page(PAGE)
    assert set(runs_choice(at).value) == {"newer-a", "newer-b"}
    for run_id in ("newer-a", "newer-b"):
        shutil.rmtree(runs_dir / run_id)
    at.run()
    assert not at.exception and not at.error
    assert set(runs_choice(at).value) == {tiny_runs["mlp"].run_id, tiny_runs["lstm"].run_id}


# ---------------------------------------------------------------- pure helpers


def scores(rows) -> pd.DataFrame:
    """Rows of a compare table, without a skill (no baseline scored): ranked by their test value."""
    table = pd.DataFrame(rows, columns=["run", "model", "dataset", "metric", "test", "better", "budget"])
    return table.assign(skill=np.nan)


def test_best_first_lowest_error_and_highest_accuracy():
    from seqlab.app.compare_view import best_first

    table = scores([
        ("a", "GRU", "sine", "MAE", 0.3, "lower", "1 epoch"),
        ("b", "LSTM", "sine", "MAE", np.nan, "lower", "1 epoch"),
        ("c", "MLP", "sine", "MAE", 0.1, "lower", "1 epoch"),
        ("d", "GRU", "vowels", "accuracy (%)", 60.0, "higher", "1 epoch"),
        ("e", "CNN", "vowels", "accuracy (%)", 90.0, "higher", "1 epoch"),
    ])
    assert list(best_first(table)["run"]) == ["c", "a", "b", "e", "d"]


def test_leaderboard_keeps_each_architectures_best_and_marks_budgets():
    from seqlab.app.compare_view import best_first, leaderboard, shared_budgets

    table = best_first(scores([
        ("m1", "Markov chain", "shakespeare", "bpc", 3.0, "lower", "1 epoch"),
        ("l1", "LSTM", "shakespeare", "bpc", 2.5, "lower", "5 epochs"),
        ("l2", "LSTM", "shakespeare", "bpc", 2.8, "lower", "1 epoch"),
        ("g1", "GPT", "shakespeare", "bpc", 2.0, "lower", "5 epochs"),
    ]))
    board = leaderboard(table)
    assert list(board["run"]) == ["g1", "l1", "m1"] and list(board["rank"]) == [1, 2, 3]
    assert list(board["same budget as"]) == ["LSTM", "GPT", ""]
    assert shared_budgets(table) == ["1 epoch", "5 epochs"]
    same = leaderboard(table, "1 epoch")
    assert list(same["run"]) == ["l2", "m1"] and list(same["same budget as"]) == ["Markov chain", "LSTM"]


def test_curves_share_keys_and_skip_missing_values(tiny_runs):
    from seqlab.app.compare_view import curve, shared_curves, x_axes

    runs = [tiny_runs["mlp"], tiny_runs["lstm"]]
    keys = shared_curves(runs)
    assert keys[:2] == ["loss", "val_loss"] and "elapsed" not in keys and "epoch" not in keys
    assert x_axes(runs) == ["epoch", "elapsed"]
    run = tiny_runs["mlp"]
    run.history["epoch"].append({"epoch": 2, "loss": None, "elapsed": 9.0})  # a diverged epoch: null
    try:
        assert curve(run, "loss") == ([1], [run.history["epoch"][0]["loss"]])
    finally:
        run.history["epoch"].pop()


def test_curves_are_named_by_the_runs_name_when_it_has_one(tiny_runs):
    from types import SimpleNamespace

    from seqlab.app.compare_view import curves_figure

    run = tiny_runs["mlp"]
    named = SimpleNamespace(name="wide mlp", meta=run.meta, run_id=run.run_id, history=run.history, spec=run.spec)
    fig = curves_figure([named, tiny_runs["lstm"]], "loss")
    assert fig.data[0].name.startswith("wide mlp · ") and run.run_id in fig.data[0].name
    assert not fig.data[1].name.startswith(" · ")  # an unnamed run: model and id only


def with_scores(root, source, run_id: str, mae: float, baselines: dict, **meta):
    """A copy of ``source`` whose test MAE and baselines' MAE are these (a run on another test window)."""
    metrics = {"model": {"mae": mae}, "baselines": {name: {"mae": v} for name, v in baselines.items()}}
    return copy_run(root, source, run_id, meta=meta, metrics=metrics)


def test_runs_rank_by_their_skill_over_one_named_baseline(tmp_path, tiny_runs):
    from seqlab.app.compare_view import compare_table, leaderboard, shared_baseline

    mlp, lstm = tiny_runs["mlp"], tiny_runs["lstm"]
    # The LSTM's lower MAE came on an easier window: its baselines did better still. Against the naive forecast,
    # the strongest baseline both were scored against, the MLP is the one with skill.
    runs = [with_scores(tmp_path, lstm, "easy-lstm", 0.4, {"naive": 0.3, "mean": 2.0, "seasonal_naive_day": 0.2}),
            with_scores(tmp_path, mlp, "hard-mlp", 0.5, {"naive": 1.0, "mean": 2.0})]
    assert shared_baseline(runs, "mae") == "naive"  # seasonal naive is the LSTM's alone
    table = compare_table(runs)
    assert list(table["run"]) == ["hard-mlp", "easy-lstm"]
    assert set(table["baseline"]) == {"Naive (last value)"} and list(table["best baseline"]) == [1.0, 0.3]
    assert table["skill"].tolist() == pytest.approx([50.0, (1 - 0.4 / 0.3) * 100])
    assert list(leaderboard(table)["run"]) == ["hard-mlp", "easy-lstm"]


def test_the_ranking_says_when_the_runs_share_no_baseline(tmp_path, tiny_runs):
    from seqlab.app.compare_view import compare_table, ranking_caption

    mlp, lstm = tiny_runs["mlp"], tiny_runs["lstm"]
    shared = compare_table([with_scores(tmp_path, lstm, "a", 0.4, {"naive": 0.3}),
                            with_scores(tmp_path, mlp, "b", 0.5, {"naive": 1.0})])
    assert ranking_caption(shared) == ("Ranked by MAE: skill over Naive (last value), the strongest baseline every run "
                                       "here was scored against.")
    apart = compare_table([with_scores(tmp_path, lstm, "c", 0.4, {"naive": 0.3}),
                           with_scores(tmp_path, mlp, "d", 0.5, {"mean": 1.0})])
    caption = ranking_caption(apart)
    assert "each run's own best baseline" in caption and "share none" in caption and "every run" not in caption


def test_an_accuracy_ranks_by_its_gain_in_points(tmp_path, tiny_runs):
    from seqlab.app.compare_view import compare_table

    def accuracy(run_id, model, unigram):
        metrics = {"model": {"mlm_accuracy": model}, "baselines": {"unigram_and_majority": {"mlm_accuracy": unigram}}}
        return copy_run(tmp_path, tiny_runs["mlp"], run_id, meta={"task": "masked_lm"}, metrics=metrics)

    table = compare_table([accuracy("bert-a", 0.095, 0.058), accuracy("bert-b", 0.30, 0.058)])
    assert list(table["run"]) == ["bert-b", "bert-a"]
    assert table["skill"].tolist() == pytest.approx([24.2, 3.7])  # points over 5.8 %, not -64 %
    assert table["metric"].iloc[0] == "masked-LM accuracy (%)" and table["test"].tolist() == pytest.approx([30, 9.5])


def test_the_page_says_when_budgets_differ(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, tiny_runs["mlp"], tiny_runs["lstm"])
    at = open_page(PAGE)
    assert not at.exception and not any("different budgets" in w.value for w in at.warning)
    # The longer run is the LSTM's newest: the leaderboard keeps it (an equal score goes to the newer run).
    copy_run(runs_dir, tiny_runs["lstm"], "longer-lstm", meta={"epochs_run": 5, "created": "2099-01-01T00:00:00+00:00"})
    at = open_page(PAGE)
    assert not at.exception and not at.error
    notices = [w.value for w in at.warning if "different budgets" in w.value]
    assert len(notices) == 2 and "1 epoch, 5 epochs" in notices[0]  # the chosen runs' table and the leaderboard
    at.selectbox(key="compare.board.sine.budget").set_value("1 epoch").run()
    assert len([w for w in at.warning if "different budgets" in w.value]) == 1  # one budget on the leaderboard
    assert "Ranked by MAE: skill over" in texts(at.caption)
