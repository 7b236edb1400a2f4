"""Forecast page: strategies, bands, peers, what-if on the known future inputs; explanations otherwise."""

import base64
import json
import shutil

import numpy as np
import pytest

from tests.app.conftest import texts

PAGE = "pages/forecast.py"


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory):
    """Closed-form runs trained once: ARX and ESN on a short sine, ARX on energy with known future inputs."""
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    store = RunStore(tmp_path_factory.mktemp("forecast_runs"))
    sine = {"length": 400, "lookback": 20, "horizon": 5}
    return {
        "arx": run_experiment(ExperimentSpec("sine", "arx", sine, {"ridge": 0.1}, epochs=1), store=store,
                              savedmodel=False),
        "esn": run_experiment(ExperimentSpec("sine", "esn", sine, {"units": 30}, epochs=1), store=store,
                              savedmodel=False),
        "energy": run_experiment(ExperimentSpec("energy", "arx", {"known_future": True}, epochs=1), store=store,
                                 savedmodel=False),
        "mlp": run_experiment(
            ExperimentSpec("adding", "mlp", {"samples": 200}, {"units": 4, "layers": 1}, epochs=1, batch_size=64),
            store=store, savedmodel=False),
    }


def copy_runs(runs_dir, *runs):
    runs_dir.mkdir(parents=True, exist_ok=True)
    for run in runs:
        shutil.copytree(run.path, runs_dir / run.run_id)


def figures(at):
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    return {spec["layout"]["title"]["text"]: spec for spec in specs}


def main_chart(at):
    return next(f for title, f in figures(at).items() if " from " in title)


def length(array):
    """Points in a plotly array: a list, or typed ``{"bdata", "dtype"}``."""
    if isinstance(array, list):
        return len(array)
    return len(base64.b64decode(array["bdata"])) // np.dtype(array["dtype"]).itemsize


def trace_names(figure):
    return [t.get("name") for t in figure["data"]]


def test_no_forecast_run_explains_how_to_train(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, tiny_runs["mlp"])  # a regression run is not listed
    at = open_page(PAGE)
    assert not at.exception
    assert "No forecast run yet" in texts(at.info)
    assert "known_future=true" in texts(at.info)


def test_direct_forecast_with_peers_errors_and_equations(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, tiny_runs["arx"], tiny_runs["mlp"])
    at = open_page(PAGE)
    assert not at.exception and not at.error
    runs = at.selectbox(key="forecast.run")
    assert len(runs.options) == 1 and runs.value == tiny_runs["arx"].run_id  # forecast runs only
    run_id = tiny_runs["arx"].run_id
    strategies = at.selectbox(key=f"forecast.{run_id}.strategy")
    assert not any("free run" in o for o in strategies.options)  # no reservoir in an ARX
    assert strategies.value == "direct"
    chart = main_chart(at)
    names = trace_names(chart)
    assert {"actual", "history (model input)", "Direct (one output per step)", "Naive (last value)"} <= set(names)
    assert not any("band" in (n or "") for n in names)
    assert "Error by horizon step at this origin: |ŷ − y| (lower is better)" in figures(at)
    assert any(r"f^{\tau}" in block.value for block in at.latex)
    assert "this run's model does not take known future inputs" in texts(at.caption).lower()
    table = at.dataframe[0].value
    assert "Direct (one output per step)" in table.index and "MAE" in table.columns


def test_monte_carlo_draws_bands_and_their_coverage(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, tiny_runs["arx"])
    at = open_page(PAGE)
    run_id = tiny_runs["arx"].run_id
    at.selectbox(key=f"forecast.{run_id}.strategy").set_value("monte_carlo").run()
    at.number_input(key=f"forecast.{run_id}.horizon").set_value(12).run()  # beyond the model's H = 5
    assert not at.exception and not at.error
    chart = main_chart(at)
    names = trace_names(chart)
    assert names.count("95 % band") == 2 and names.count("80 % band") == 2  # lower + filled upper
    assert names.index("95 % band") < names.index("actual")  # the bands lie under the lines
    upper = next(t for t in chart["data"] if t.get("name") == "95 % band" and t.get("fill") == "tonexty")
    assert upper["fillcolor"].startswith("rgba")
    model_line = next(t for t in chart["data"] if t.get("name") == "Monte-Carlo (iterated, sampled noise)")
    assert length(model_line["x"]) == 12
    bands = at.dataframe[1].value  # under the MAE / RMSE table
    assert list(bands.index) == ["80 % band", "95 % band"] and bands["coverage (%)"].between(0, 100).all()
    assert (bands["mean width"] > 0).all()
    assert any(r"\mathcal{N}(0, \sigma_\tau^2)" in block.value for block in at.latex)
    assert "σ_τ = " in texts(at.caption)
    assert "--strategy monte_carlo --horizon 12" in texts(at.caption)  # the CLI line of the same scoring
    at.button(key=f"forecast.{run_id}.score").click().run()
    assert not at.exception and not at.error
    period = at.dataframe[2].value
    assert "Monte-Carlo (iterated, sampled noise)" in period.index and "Naive (last value)" in period.index
    assert "% of the actual values (nominal 95 %)" in texts(at.caption)


def test_esn_offers_the_free_run(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, tiny_runs["esn"])
    at = open_page(PAGE)
    run_id = tiny_runs["esn"].run_id
    strategies = at.selectbox(key=f"forecast.{run_id}.strategy")
    assert {"ESN free run (closed loop)", "Monte-Carlo free run (ESN, sampled noise)"} <= set(strategies.options)
    strategies.set_value("free_run").run()
    assert not at.exception and not at.error
    assert "ESN free run (closed loop)" in trace_names(main_chart(at))
    assert any("B z_{t+" in block.value for block in at.latex)


def test_energy_what_if_redraws_the_forecast(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, tiny_runs["energy"])
    at = open_page(PAGE)
    assert not at.exception and not at.error
    run_id = tiny_runs["energy"].run_id
    origin = at.select_slider(key=f"forecast.{run_id}.origin")
    assert "00:00" in origin.format_func(origin.value)  # the first midnight of the test period

    def forecast():
        line = next(t for t in main_chart(at)["data"] if t.get("name") == "Direct (one output per step)")
        return line["y"]

    before = forecast()
    at.slider(key=f"forecast.{run_id}.whatif.Temperature").set_value(5.0).run()
    warmer = forecast()
    assert not at.exception and warmer != before
    assert "No day of this forecast has WorkDay = 1: no day to turn into a holiday." in texts(at.caption)  # that first midnight is a Saturday
    monday = origin.value + 2 * 48
    origin.set_value(monday).run()
    warmer = forecast()
    holidays = at.multiselect(key=f"forecast.{run_id}.whatif.WorkDay.{monday}")
    assert holidays.options == ["Mon 10 Nov 2014"]
    holidays.set_value(["Mon 10 Nov 2014"]).run()
    assert not at.exception and forecast() != warmer
    # Future inputs set to zero: the what-if has nothing to act on, and says so.
    at.selectbox(key=f"forecast.{run_id}.mode").set_value("zero").run()
    assert "only the future-input mode *known* reads" in texts(at.caption)
