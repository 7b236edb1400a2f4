"""Inspect page: heatmaps, equations and gradients of a recurrent run; explanations otherwise."""

import base64
import json
import shutil

import pytest

from tests.app.broken_runs import add_broken_runs
from tests.app.conftest import texts
from tests.test_keras_file import rewrite_config

PAGE = "pages/inspect.py"


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory):
    """A tiny sine LSTM run and a tiny MLP run, trained once for the module."""
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    store = RunStore(tmp_path_factory.mktemp("inspect_runs"))
    data = {"length": 300, "lookback": 12, "horizon": 3}
    lstm = run_experiment(
        ExperimentSpec("sine", "lstm", data, {"units": 4}, epochs=1, batch_size=64), store=store)  # broken copies
    mlp = run_experiment(
        ExperimentSpec("sine", "mlp", data, {"units": 4, "layers": 1}, epochs=1,
                       batch_size=64), store=store, savedmodel=False)
    return {"lstm": lstm, "mlp": mlp}


def copy_runs(runs_dir, *runs):
    runs_dir.mkdir(parents=True, exist_ok=True)
    for run in runs:
        shutil.copytree(run.path, runs_dir / run.run_id)


def test_no_runs_explains_how_to_train(open_page):
    at = open_page(PAGE)
    assert not at.exception
    assert "No trained runs yet" in texts(at.markdown)
    assert "python -m seqlab train" in texts(at.markdown)


def test_lstm_run_shows_heatmaps_equations_and_gradients(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, tiny_runs["lstm"], tiny_runs["mlp"])
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert at.selectbox(key="inspect.run").value == tiny_runs["lstm"].run_id  # only recurrent runs listed
    figures = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    titles = [figure["layout"]["title"]["text"] for figure in figures]
    assert len(figures) == 6, titles  # state, gates, cell state, PCA, gradient through time, grad norm per batch
    assert titles[0].startswith("Hidden state hₜ of lstm_1") and titles[1].startswith("Gates of lstm_1")
    latex = [element.value for element in at.latex]
    assert any(r"f_t = \sigma" in block for block in latex)
    assert any(r"c_t = f_t \circ c_{t-1}" in block for block in latex)
    bptt = next(f for f in figures if f["layout"]["title"]["text"].startswith("Gradient through time"))
    assert bptt["layout"]["yaxis"]["type"] == "log" and bptt["layout"]["yaxis"]["title"]["text"].startswith("‖∂L/∂hₜ‖")
    assert len(base64.b64decode(bptt["data"][0]["y"]["bdata"])) == 12 * 8  # one float64 per input step


def test_editing_an_input_value_changes_the_trace(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, tiny_runs["lstm"])
    at = open_page(PAGE)
    run_id = tiny_runs["lstm"].run_id
    before = next(c.proto.spec for c in at.get("plotly_chart") if "Hidden state" in c.proto.spec)
    sample = at.session_state[f"inspect.sample.{run_id}"]
    editor = f"inspect.edit.{run_id}.{sample}"
    at.session_state[editor] = {"edited_rows": {0: {"y": 5.0}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception
    assert "1 value(s) edited." in texts(at.caption)
    after = next(c.proto.spec for c in at.get("plotly_chart") if "Hidden state" in c.proto.spec)
    assert after != before


def test_mlp_run_is_explained_not_an_error(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, tiny_runs["mlp"])
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert "No recurrent run to inspect" in texts(at.markdown)

    copy_runs(runs_dir, tiny_runs["lstm"])
    at = open_page(PAGE)
    at.toggle(key="inspect.all").set_value(True).run()
    at.selectbox(key="inspect.run").set_value(tiny_runs["mlp"].run_id).run()
    assert not at.exception and not at.error
    assert "has no recurrent layer" in texts(at.markdown)
    assert not at.get("plotly_chart")


def test_a_corrupt_model_file_is_named_not_mistaken_for_a_feed_forward_model(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, tiny_runs["lstm"])
    (runs_dir / tiny_runs["lstm"].run_id / "model.keras").write_bytes(b"not a zip archive")
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert f"not readable runs ({tiny_runs['lstm'].run_id})" in texts(at.warning)
    assert "has a recurrent layer" not in texts(at.markdown)
    assert not at.get("plotly_chart")


def test_a_model_config_naming_another_module_is_not_inspected(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, tiny_runs["lstm"])
    folder = runs_dir / tiny_runs["lstm"].run_id
    (folder / "manifest.json").unlink()  # as a run from before manifests: only the config check stands
    rewrite_config(tiny_runs["lstm"].keras_path, folder / "model.keras",
                   lambda config: {**config, "module": "imaplib", "class_name": "IMAP4", "registered_name": None})
    at = open_page(PAGE)
    assert not at.exception and not at.error
    warning = texts(at.warning)
    assert f"Run `{tiny_runs['lstm'].run_id}` cannot be inspected" in warning and "'imaplib'" in warning
    assert not at.get("plotly_chart")


def test_broken_runs_are_a_warning_and_good_runs_still_inspect(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, tiny_runs["lstm"])
    names = add_broken_runs(runs_dir, tiny_runs["lstm"])
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert all(name in texts(at.warning) for name in names)
    assert len(at.selectbox(key="inspect.run").options) == 1
    assert at.get("plotly_chart")


def test_a_run_deleted_on_models_is_gone_from_inspect(open_page, runs_dir, tiny_runs):
    copy_runs(runs_dir, tiny_runs["lstm"], tiny_runs["mlp"])
    lstm = tiny_runs["lstm"].run_id
    at = open_page(PAGE)
    assert at.selectbox(key="inspect.run").value == lstm
    at.switch_page("pages/models.py").run()
    at.selectbox(key="models.run").set_value(lstm).run()
    at.button(key=f"models.delete.{lstm}").click().run()
    at.button(key=f"models.delete_yes.{lstm}").click().run()
    assert not at.exception and not (runs_dir / lstm).exists()
    at.switch_page(PAGE).run()
    assert not at.exception and not at.error
    assert "No recurrent run to inspect" in texts(at.markdown)
    assert lstm not in texts(at.markdown) + texts(at.warning) and not at.get("plotly_chart")


def test_a_forecaster_given_the_known_future_is_inspected_with_it(open_page, runs_dir, tmp_path):
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    data = {"lookback": 12, "horizon": 4, "stride": 97, "known_future": True}
    run = run_experiment(ExperimentSpec("energy", "gru", data, {"units": 3}, epochs=1), store=RunStore(runs_dir),
                         savedmodel=False)
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert at.selectbox(key="inspect.run").value == run.run_id
    titles = [json.loads(chart.proto.spec)["layout"]["title"]["text"] for chart in at.get("plotly_chart")]
    assert titles[0].startswith("Hidden state hₜ of gru")
    assert any(t.startswith("Gradient through time") for t in titles)
