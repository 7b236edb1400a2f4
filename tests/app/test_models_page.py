"""Models page: empty state, broken folders, one run's views, serving the SavedModel, delete."""

import json
import shutil

import pytest

from tests.app.broken_runs import add_broken_runs
from tests.app.conftest import texts


@pytest.fixture
def with_run(runs_dir, trained_run):
    runs_dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(trained_run.path, runs_dir / trained_run.run_id)
    return trained_run.run_id


def test_empty_store_explains_how_to_train(open_page):
    at = open_page("pages/models.py")
    assert not at.exception
    assert "No trained runs yet" in texts(at.markdown)


def test_corrupt_run_folder_is_a_warning(open_page, runs_dir, with_run):
    broken = runs_dir / "20260101-000000-sine-gru-dead"
    broken.mkdir()
    (broken / "spec.json").write_text("{not json")
    (broken / "meta.json").write_text("{}")
    (broken / "metrics.json").write_text("{}")
    at = open_page("pages/models.py")
    assert not at.exception
    assert broken.name in texts(at.warning)
    assert at.selectbox(key="models.run").value == with_run
    assert len(at.selectbox(key="models.run").options) == 1  # the broken folder is not offered


def test_run_views_and_savedmodel_prediction(open_page, with_run):
    at = open_page("pages/models.py")
    assert not at.exception
    table = at.dataframe[0].value
    assert table.loc[0, "run"] == with_run and table.loc[0, "metric"] == "MAE"
    charts = len(at.get("plotly_chart"))  # forecasts and loss history
    assert charts >= 2
    at.button(key=f"models.serve.{with_run}.go").click().run()
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) == charts + 1
    gap = next(m for m in at.metric if m.label.startswith("Largest gap"))
    assert float(gap.value.split()[0]) < 1e-4  # the SavedModel is the trained model


def test_a_run_saved_before_per_step_metrics_still_renders(open_page, runs_dir, with_run):
    from seqlab.manifest import write_manifest

    folder = runs_dir / with_run
    metrics = json.loads((folder / "metrics.json").read_text())
    old = {part: metrics[part] for part in ("model", "baselines")}  # no per_step, no sMAPE or MASE
    for scores in (old["model"], *old["baselines"].values()):
        scores.pop("smape"), scores.pop("mase")
        scores["mape"] = 12.5
    (folder / "metrics.json").write_text(json.dumps(old))
    write_manifest(folder)
    at = open_page("pages/models.py")
    assert not at.exception and not at.error
    assert at.selectbox(key="models.run").value == with_run
    assert list(at.dataframe[1].value.columns) == ["MAE", "RMSE", "MAPE (%)"]
    # The error-by-step chart falls back on the stored predictions.
    assert any("Error by horizon step" in chart.proto.spec for chart in at.get("plotly_chart"))


def test_delete_asks_first(open_page, runs_dir, with_run):
    at = open_page("pages/models.py")
    at.button(key=f"models.delete.{with_run}").click().run()
    assert "cannot be undone" in texts(at.warning)
    assert (runs_dir / with_run).exists()
    at.button(key=f"models.delete_yes.{with_run}").click().run()
    assert not at.exception
    assert not (runs_dir / with_run).exists()
    assert "No trained runs yet" in texts(at.markdown)


def test_broken_runs_are_listed_with_the_reason_and_can_be_deleted(open_page, runs_dir, with_run, trained_run):
    names = add_broken_runs(runs_dir, trained_run)
    at = open_page("pages/models.py")
    assert not at.exception
    warnings = texts(at.warning)
    assert "meta.json must hold a JSON object" in warnings
    assert "model.keras was changed" in warnings and "saved_model.pb was changed" in warnings
    assert "nests arrays or objects more than 100 levels" in warnings
    assert "manifest.json is not a regular file" in warnings
    assert len(at.selectbox(key="models.run").options) == 1
    for name in names:
        at.button(key=f"models.delete.{name}").click().run()
        assert "cannot be undone" in texts(at.warning)
        at.button(key=f"models.delete_yes.{name}").click().run()
        assert not at.exception and not at.error
        assert not (runs_dir / name).exists() and name not in texts(at.warning)
    assert [p.name for p in runs_dir.iterdir()] == [with_run]
    assert at.selectbox(key="models.run").value == with_run


def test_a_broken_folder_whose_name_is_no_run_id_can_be_deleted(open_page, runs_dir, with_run):
    odd = runs_dir / "my run (copy)"  # a copy made by hand: listed as broken, so it must be deletable
    odd.mkdir()
    (odd / "spec.json").write_text("{")
    at = open_page("pages/models.py")
    assert "my run (copy)" in texts(at.warning)
    at.button(key=f"models.delete.{odd.name}").click().run()
    at.button(key=f"models.delete_yes.{odd.name}").click().run()
    assert not at.exception and not at.error
    assert not odd.exists() and (runs_dir / with_run).is_dir()


def test_an_untrusted_savedmodel_asks_before_loading(open_page, runs_dir, with_run, monkeypatch, tmp_path):
    monkeypatch.setenv("SEQLAB_HOME", str(tmp_path / "another-user"))  # the run was signed with another key
    at = open_page("pages/models.py")
    at.button(key=f"models.serve.{with_run}.go").click().run()
    assert not at.exception and not at.error
    assert "SavedModel is code" in texts(at.warning) and "not signed with this user's key" in texts(at.warning)
    assert not any(m.label.startswith("Largest gap") for m in at.metric)  # nothing loaded
    at.button(key=f"models.serve.{with_run}.trust").click().run()
    assert not at.exception and not at.error
    gap = next(m for m in at.metric if m.label.startswith("Largest gap"))
    assert float(gap.value.split()[0]) < 1e-4


def test_skill_has_one_sign_in_the_table_and_the_run_overview(open_page, runs_dir, with_run):
    from seqlab.manifest import write_manifest

    folder = runs_dir / with_run
    metrics = json.loads((folder / "metrics.json").read_text())
    best = min(b["mae"] for b in metrics["baselines"].values())
    metrics["model"]["mae"] = best / 2  # beats its best baseline: skill +50 %
    (folder / "metrics.json").write_text(json.dumps(metrics))
    write_manifest(folder)
    at = open_page("pages/models.py")
    assert not at.exception and not at.error
    assert at.dataframe[0].value.loc[0, "skill"] == pytest.approx(50.0)
    card = next(m for m in at.metric if m.label == "Test MAE")
    assert card.proto.delta.startswith("+50.0 %")  # positive = better, as in the table
    # The sine crosses zero: no percentage of it is headlined, MAE and RMSE are.
    assert [m.label for m in at.metric][:3] == ["Test MAE", "Test RMSE", "Test MAPE"]
    assert next(m for m in at.metric if m.label == "Test MAPE").value == "n/a"


def test_train_again_with_changes_opens_train_with_the_runs_settings(open_page, with_run, trained_run):
    at = open_page("pages/models.py")
    at.button(key=f"models.again.{with_run}").click().run()
    assert not at.exception
    spec = trained_run.spec
    assert at.selectbox(key="train.dataset").value == spec["dataset"]
    arch = spec["model"]
    for name, value in spec["model_options"].items():
        widget = next((w for w in [*at.number_input, *at.selectbox, *at.toggle] if w.key == f"train.arch.{arch}.{name}"),
                      None)
        if widget is not None:
            assert widget.value == value, name
    assert at.number_input(key="train.fit.epochs").value == spec["epochs"]
