"""A strategy scored over the test period: library (``score_strategy``) and CLI (``python -m seqlab forecast``)."""

import json
import shutil

import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.forecasting import forecast_metrics
from seqlab.forecasting.scoring import score_strategy
from tests.test_cli import run_cli

DATA = {"length": 400, "lookback": 20, "horizon": 5}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    store = RunStore(tmp_path_factory.mktemp("scoring_runs"))
    return {
        "arx": run_experiment(ExperimentSpec("sine", "arx", DATA, {"ridge": 0.1}), store=store, savedmodel=False),
        "esn": run_experiment(ExperimentSpec("sine", "esn", DATA, {"units": 30}), store=store, savedmodel=False),
        "regress": run_experiment(
            ExperimentSpec("adding", "mlp", {"length_T": 5, "samples": 60}, {"units": 4},
                           epochs=1), store=store, savedmodel=False),
    }


def test_direct_scores_are_the_runs_own_test_metrics(runs):
    run = runs["arx"]
    scores = score_strategy(run.load_model(), load_dataset("sine", **DATA))
    for key, value in run.metrics["model"].items():
        assert scores.model[key] == pytest.approx(value, rel=1e-5), key
    assert scores.baselines["naive"]["mae"] == pytest.approx(run.metrics["baselines"]["naive"]["mae"])
    assert scores.bands == {} and scores.samples == 1


def test_monte_carlo_scores_its_bands_and_iterated_goes_beyond_the_horizon(runs):
    model, data = runs["arx"].load_model(), load_dataset("sine", **DATA)
    mc = score_strategy(model, data, "monte_carlo", samples=50, every=3)
    assert set(mc.bands) == {80, 95} and mc.bands[95]["coverage"] >= mc.bands[80]["coverage"]
    assert mc.bands[95]["width"] > mc.bands[80]["width"] > 0
    assert len(mc.origins) == len(data.splits["test"].origin[::3])
    longer = score_strategy(model, data, "iterated", horizon=12)
    y = data.target_series[longer.origins[:, None] + np.arange(12)]
    assert longer.horizon == 12 and np.isfinite(longer.model["mae"])
    assert longer.baselines["naive"]["mae"] == pytest.approx(
        forecast_metrics(y, np.repeat(data.target_series[longer.origins - 1][:, None], 12, axis=1))["mae"]
    )


def test_refusals_name_what_to_do(runs):
    model, data = runs["arx"].load_model(), load_dataset("sine", **DATA)
    with pytest.raises(ValueError, match="offers direct, iterated, monte_carlo"):
        score_strategy(model, data, "free_run")
    with pytest.raises(ValueError, match=r"horizon must lie in 1..5 for strategy 'direct'"):
        score_strategy(model, data, "direct", horizon=6)
    with pytest.raises(ValueError, match="every must be a positive integer"):
        score_strategy(model, data, every=0)


def test_cli_scores_a_strategy_and_refuses_what_does_not_apply(capsys, runs_dir, runs):
    for run in runs.values():
        shutil.copytree(run.path, runs_dir / run.run_id)
    esn = runs["esn"].run_id
    code, out, err = run_cli(capsys, "forecast", esn, "--strategy", "monte_carlo_free_run", "--samples", "20",
                             "--horizon", "8", "--json")  # fmt: skip
    assert code == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    assert (result["strategy"], result["horizon"], result["samples"]) == ("monte_carlo_free_run", 8, 20)
    assert set(result["bands"]) == {"80", "95"} and "holt_winters" in result["baselines"]
    code, out, _ = run_cli(capsys, "forecast", esn, "--strategy", "free_run")
    assert code == 0 and "free_run from" in out and "seasonal_naive" in out
    code, _, err = run_cli(capsys, "forecast", runs["arx"].run_id, "--strategy", "free_run")
    assert code == 2 and "does not apply to this model" in err
    code, _, err = run_cli(capsys, "forecast", runs["regress"].run_id)
    assert code == 2 and "forecast scores forecast runs only" in err
