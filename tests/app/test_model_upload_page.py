"""Models page: predict a stored run from your own CSV or text; upload a model (.keras, run zip, SavedModel)."""

import io
import shutil
import zipfile

import numpy as np
import pandas as pd
import pytest

from seqlab.export import zip_bytes
from tests.app.conftest import texts
from tests.app import test_text_classes_pages as text_pages
from tests.test_uploaded_model import savedmodel_zip, sine_frame

text_run = text_pages.text_run  # the tiny text classifier, a module fixture


@pytest.fixture
def with_run(runs_dir, trained_run):
    runs_dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(trained_run.path, runs_dir / trained_run.run_id)
    return trained_run.run_id


def csv(frame: pd.DataFrame, name: str = "recent.csv") -> tuple:
    return name, frame.to_csv(index=False).encode(), "text/csv"


def test_a_stored_run_forecasts_an_uploaded_csv(open_page, with_run):
    at = open_page("pages/models.py")
    upload = at.file_uploader(key=f"models.own.{with_run}.csv")
    upload.set_value(csv(sine_frame())).run()
    assert not at.exception and not at.error
    forecast = at.dataframe[-1].value
    assert list(forecast.columns) == ["step", "y"] and len(forecast) == 10
    assert any("after the last row of your file" in chart.proto.spec for chart in at.get("plotly_chart"))


@pytest.mark.parametrize(
    "frame, message",
    [
        (sine_frame().rename(columns={"y": "load"}), "lacks column(s) ['y']"),
        (sine_frame(20), "has 20 rows; the model needs at least 50"),
        (sine_frame().assign(y=lambda f: f.y.where(f.index != 55)), "NaN or infinite"),
        (sine_frame().assign(y="high"), "not numeric"),
    ],
)
def test_a_bad_csv_gets_a_clear_error(open_page, with_run, frame, message):
    at = open_page("pages/models.py")
    at.file_uploader(key=f"models.own.{with_run}.csv").set_value(csv(frame)).run()
    assert not at.exception
    assert message in texts(at.error)


def test_an_untrusted_run_asks_once_for_its_test_window_and_your_data(open_page, with_run, monkeypatch, tmp_path):
    monkeypatch.setenv("SEQLAB_HOME", str(tmp_path / "another-user"))  # the run was signed with another key
    at = open_page("pages/models.py")
    at.file_uploader(key=f"models.own.{with_run}.csv").set_value(csv(sine_frame())).run()
    assert not at.exception and not at.error
    assert "SavedModel is code" in texts(at.warning)
    at.button(key=f"models.own.{with_run}.trust").click().run()
    assert not at.exception and not at.error and "SavedModel is code" not in texts(at.warning)
    assert len(at.dataframe[-1].value) == 10
    at.button(key=f"models.serve.{with_run}.go").click().run()  # the test window: trusted too
    assert not at.exception and any(m.label.startswith("Largest gap") for m in at.metric)


def test_a_ragged_csv_is_refused_by_the_input_gate(open_page, with_run):
    at = open_page("pages/models.py")
    at.file_uploader(key=f"models.own.{with_run}.csv").set_value(("r.csv", b"y\n1\n2,3\n", "text/csv")).run()
    assert not at.exception and "different number of values" in texts(at.error)


def test_an_uploaded_run_zip_shows_its_shapes_and_forecasts_a_csv(open_page, with_run, trained_run):
    at = open_page("pages/models.py")
    at.file_uploader(key="models.upload.file").set_value(
        (f"{with_run}.zip", zip_bytes(trained_run), "application/zip")).run()
    assert not at.exception and not at.error
    described = texts(at.markdown)
    assert "is **a seqlab run zip (its model.keras)** · trained as" in described
    assert f"{trained_run.meta.parameters:,} parameters" in described
    shapes = at.dataframe[-1].value
    assert shapes.loc[0, "inputs"] == "window (None, 50, 1) float32" and shapes.loc[0, "outputs"] == "(None, 10)"
    at.file_uploader(key="models.upload.predict.csv").set_value(csv(sine_frame())).run()
    assert not at.exception and not at.error
    forecast = at.dataframe[-1].value
    assert list(forecast.columns) == ["step", "y"] and len(forecast) == 10


def test_a_corrupt_model_file_is_an_error_not_a_traceback(open_page, with_run):
    at = open_page("pages/models.py")
    broken = ("broken.keras", b"PK\x03\x04garbage", "application/zip")
    at.file_uploader(key="models.upload.file").set_value(broken).run()
    assert not at.exception
    assert "Could not load the model" in texts(at.error) and "broken.keras" in texts(at.error)


def test_an_uploaded_savedmodel_asks_for_trust_then_predicts(open_page, trained_run):
    at = open_page("pages/models.py")  # the empty store still offers the upload
    exported = ("sm.zip", savedmodel_zip(trained_run), "application/zip")
    at.file_uploader(key="models.upload.file").set_value(exported).run()
    assert not at.exception and not at.error
    assert "SavedModel is code" in texts(at.warning) and "is **a SavedModel**" not in texts(at.markdown)
    at.button(key="models.upload.trust").click().run()
    assert not at.exception and not at.error
    assert "`sm.zip` is **a SavedModel**" in texts(at.markdown)
    at.file_uploader(key="models.upload.serve.csv").set_value(csv(sine_frame()[["y"]])).run()
    assert not at.exception and not at.error
    prediction = at.dataframe[-1].value
    assert len(prediction) == 10 and np.isfinite(prediction["output_0"]).all()


def test_a_text_run_classifies_typed_texts_and_notes_unknown_words(open_page, runs_dir, text_run):
    text_pages.copy_run(runs_dir, text_run)
    at = open_page("pages/models.py")
    at.text_area(key=f"models.own.{text_run.run_id}.text").set_value("a superb film\nzzzz qqqq").run()
    assert not at.exception and not at.error
    table = at.dataframe[-1].value
    assert list(table["text"]) == ["a superb film", "zzzz qqqq"] and set(table["class"]) <= {"1", "3", "5"}
    assert "Every token of text 2 is unknown" in texts(at.info)


def test_an_uploaded_text_run_zip_classifies_typed_texts(open_page, text_run):
    data = zip_bytes(text_run)
    usage = zipfile.ZipFile(io.BytesIO(data)).read(f"{text_run.run_id}/USAGE.md").decode()
    assert "tokens = np.ones((1, 6), np.int32)" in usage  # the run's own input name and shape
    assert 'served.serve_text(tf.constant(["a text of your own"]))' in usage and "['1', '3', '5']" in usage
    at = open_page("pages/models.py")
    at.file_uploader(key="models.upload.file").set_value(("t.zip", data, "application/zip")).run()
    assert not at.exception and not at.error
    at.text_area(key="models.upload.predict.text").set_value("a superb film").run()
    assert not at.exception and not at.error
    table = at.dataframe[-1].value
    assert table.loc[0, "text"] == "a superb film" and table.loc[0, "class"] in {"1", "3", "5"}
    assert list(table.columns[-3:]) == ["p(1)", "p(3)", "p(5)"]


def test_an_uploaded_text_savedmodel_serves_typed_texts_through_its_string_endpoint(open_page, text_run):
    at = open_page("pages/models.py")
    at.file_uploader(key="models.upload.file").set_value(("t.zip", savedmodel_zip(text_run), "application/zip")).run()
    at.button(key="models.upload.trust").click().run()
    assert not at.exception and not at.error
    assert list(at.dataframe[-1].value["endpoint"]) == ["serve", "serve_text"]
    at.text_area(key="models.upload.serve_text.text").set_value("a superb film\ndull").run()
    assert not at.exception and not at.error
    table = at.dataframe[-1].value
    assert list(table["text"]) == ["a superb film", "dull"] and table.shape == (2, 4)  # text and 3 probabilities


def hostile_uploads(trained_run, tmp_path) -> dict:
    """name -> (bytes, what the error says): the upload classes that took a traceback or the server's memory."""
    from tests.test_keras_file import rewrite_config

    clash = io.BytesIO()
    with zipfile.ZipFile(clash, "w") as archive:
        archive.writestr("a", "a file")
        archive.writestr("a/b", "a file in a folder of the same name")

    def torch(config):
        layer = next(l for l in config["config"]["layers"] if l["class_name"] == "Dense")
        layer.update(class_name="TorchModuleWrapper", config={"name": "t", "module": "gASVAAAAAAAAAACMBG5vbmWULg=="})
        return config

    def wide(config):
        layer = next(l for l in config["config"]["layers"] if l["class_name"] == "Dense")
        layer["config"]["units"] = 2_000_000_000
        return config

    return {
        "clash.zip": (clash.getvalue(), "holds both a file and a folder named 'a'"),
        "torch.keras": (rewrite_config(trained_run.keras_path, tmp_path / "t.keras", torch).read_bytes(),
                        "names Keras's TorchModuleWrapper"),
        "wide.keras": (rewrite_config(trained_run.keras_path, tmp_path / "w.keras", wide).read_bytes(),
                       "asks for more than 5,000,000 weights"),
    }


def test_a_hostile_model_upload_is_an_error_not_a_traceback(open_page, trained_run, tmp_path):
    at = open_page("pages/models.py")
    for name, (data, message) in hostile_uploads(trained_run, tmp_path).items():
        at.file_uploader(key="models.upload.file").set_value((name, data, "application/zip")).run()
        assert not at.exception
        assert "Could not load the model" in texts(at.error) and message in texts(at.error), name


def test_an_uploaded_language_run_zip_heads_its_probabilities_with_its_tokens(open_page, tmp_path):
    from seqlab.tasks import get_task
    from tests.language_run import train_language_run

    run = train_language_run(tmp_path / "lm")
    vocab = get_task("language").load_assets(run.path)["tokenizer"].vocab
    at = open_page("pages/models.py")
    at.file_uploader(key="models.upload.file").set_value(("lm.zip", zip_bytes(run), "application/zip")).run()
    at.text_area(key="models.upload.predict.text").set_value("def f").run()
    assert not at.exception and not at.error
    table = at.dataframe[-1].value
    assert table.loc[0, "text"] == "def f" and len(table.columns) == len(vocab) + 1
    assert {"p(␣)", "p(d)"} <= set(table.columns) and "0" not in table.columns  # the tokens, not 0 to V - 1
