"""Models: a run zip added to my runs, listed with the imported badge, its SavedModel behind "I trust this model"."""

import shutil

import pytest

from seqlab.export import TRUST_LABEL, zip_bytes
from tests.app.conftest import texts


@pytest.mark.slow  # loads the SavedModel and reruns the page several times: about 20 s
def test_add_a_run_zip_to_my_runs_then_trust_its_savedmodel(open_page, runs_dir, trained_run):
    runs_dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(trained_run.path, runs_dir / trained_run.run_id)  # the zip's own id is taken
    at = open_page("pages/models.py")
    at.file_uploader(key="models.upload.file").set_value(
        (f"{trained_run.run_id}.zip", zip_bytes(trained_run), "application/zip")).run()
    at.button(key="models.upload.add").click().run()
    assert not at.exception and not at.error
    assert "(imported, untrusted)" in texts(at.success)
    table = at.dataframe[0].value
    assert len(table) == 2 and sorted(table["origin"]) == ["imported", "trained here"]
    imported = table.loc[table["origin"] == "imported", "run"].item()
    assert imported != trained_run.run_id  # a new id: the stored run is untouched

    at.selectbox(key="models.run").set_value(imported).run()
    chooser = at.selectbox(key="models.run")
    assert "[imported]" in chooser.format_func(imported)
    assert "-badge[:material/move_to_inbox: imported, untrusted]" in texts(at.markdown)  # st.badge is Markdown
    assert at.get("plotly_chart"), "its metrics and curves show like any run's"
    at.button(key=f"models.serve.{imported}.go").click().run()
    assert not at.exception
    assert "imported from the zip" in texts(at.warning)  # the SavedModel waits for the user's word
    trust = at.button(key=f"models.serve.{imported}.trust")
    assert trust.label == TRUST_LABEL
    trust.click().run()
    at.button(key=f"models.serve.{imported}.go").click().run()
    assert not at.exception and not at.error
    assert any(m.label.startswith("Largest gap") for m in at.metric)  # served once the user trusts it
