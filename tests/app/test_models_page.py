"""Models page: empty state, broken folders, one run's views, serving the SavedModel, delete."""

import shutil

import pytest

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


def test_delete_asks_first(open_page, runs_dir, with_run):
    at = open_page("pages/models.py")
    at.button(key=f"models.delete.{with_run}").click().run()
    assert "cannot be undone" in texts(at.warning)
    assert (runs_dir / with_run).exists()
    at.button(key=f"models.delete_yes.{with_run}").click().run()
    assert not at.exception
    assert not (runs_dir / with_run).exists()
    assert "No trained runs yet" in texts(at.markdown)
