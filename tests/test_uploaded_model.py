"""Uploaded models (seqlab.uploaded_model) and the run zip's USAGE.md: safe loading, clear refusals, predictions."""

import io
import re
import tracemalloc
import zipfile

import numpy as np
import pandas as pd
import pytest

from seqlab.export import USAGE, UntrustedModelError, load_serving, zip_bytes
from seqlab.inputs import InputLimits
from seqlab.uploaded_model import open_upload, windows_from_csv
from tests.fresh_process import without_seqlab


def sine_frame(rows: int = 60) -> pd.DataFrame:
    return pd.DataFrame({"time": np.arange(rows), "y": np.sin(np.arange(rows) / 3.0)})


def savedmodel_zip(run, prefix: str = "exported/") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted((run.path / "savedmodel").rglob("*")):
            if path.is_file():
                archive.write(path, prefix + path.relative_to(run.path / "savedmodel").as_posix())
    return buffer.getvalue()


def test_the_zip_has_a_usage_snippet_that_serves_in_a_fresh_process(trained_run, tmp_path):
    zipfile.ZipFile(io.BytesIO(zip_bytes(trained_run))).extractall(tmp_path)
    usage = (tmp_path / trained_run.run_id / USAGE).read_text()
    assert f'tf.saved_model.load("{trained_run.run_id}/savedmodel")' in usage
    assert "window = np.zeros((1, 50, 1), np.float32)" in usage  # the run's own input name and shape
    assert "served.serve(tf.constant(window))" in usage and "load_keras" in usage
    served_block = re.findall(r"```python\n(.*?)```", usage, re.S)[0]
    result = without_seqlab(served_block + 'import json\nprint(json.dumps({"shape": list(prediction.shape)}))\n',
                            cwd=tmp_path)
    assert result == {"shape": [1, trained_run.meta.horizon], "seqlab": False}


def test_a_run_zip_loads_its_keras_model_and_forecasts_a_csv_like_the_savedmodel(trained_run, tmp_path):
    model = open_upload(f"{trained_run.run_id}.zip", zip_bytes(trained_run), tmp_path / "up")
    assert model.kind == "run" and model.meta.features == ["y"] and model.parameters == trained_run.meta.parameters
    (endpoint,) = model.endpoints
    assert endpoint.inputs == [("window", (None, 50, 1), "float32")]
    windows = windows_from_csv(model, endpoint, sine_frame())
    expected = load_serving(trained_run)(windows[0])
    np.testing.assert_allclose(endpoint.call(windows), expected, atol=1e-5)
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['y'\]"):
        windows_from_csv(model, endpoint, sine_frame().rename(columns={"y": "z"}))


def test_a_keras_file_predicts_from_the_numeric_columns_of_a_csv(trained_run, tmp_path):
    model = open_upload("mine.keras", trained_run.keras_path.read_bytes(), tmp_path / "up")
    assert model.kind == "keras" and model.meta is None
    (endpoint,) = model.endpoints
    frame = sine_frame()[["y"]]
    assert endpoint.call(windows_from_csv(model, endpoint, frame)).shape == (1, 10)
    with pytest.raises(ValueError, match=r"2 numeric column\(s\).*exactly 1"):
        windows_from_csv(model, endpoint, sine_frame())
    with pytest.raises(ValueError, match="has 20 rows.*at least 50"):
        windows_from_csv(model, endpoint, frame.head(20))
    frame.loc[55, "y"] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        windows_from_csv(model, endpoint, frame)


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("model.keras", b"not a zip at all", "The model file 'model.keras' is not a readable zip file"),
        ("model.txt", b"hello", "neither a .keras file nor a .zip"),
        ("model.zip", b"PK\x03\x04 broken", "not a readable zip"),
    ],
)
def test_a_bad_file_is_refused_with_the_reason(tmp_path, name, data, message):
    with pytest.raises(ValueError, match=message) as refused:
        open_upload(name, data, tmp_path / "up")
    assert name in str(refused.value) and str(tmp_path) not in str(refused.value)  # never a server path


def test_a_zip_that_escapes_its_folder_or_is_too_big_is_refused(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../../evil.py", "print('hi')")
    with pytest.raises(ValueError, match="outside its folder"):
        open_upload("evil.zip", buffer.getvalue(), tmp_path / "up")
    assert not (tmp_path / "evil.py").exists()
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("saved_model.pb", b"\0" * 2_000_000)
    with pytest.raises(ValueError, match="unpacks to more than"):
        open_upload("bomb.zip", bomb.getvalue(), tmp_path / "bomb", limits=InputLimits(max_decompressed_bytes=1 << 20))
    with pytest.raises(ValueError, match="limit"):
        open_upload("big.zip", bomb.getvalue(), tmp_path / "big", limits=InputLimits(max_bytes=100))


def test_a_zipped_savedmodel_loads_only_when_trusted(trained_run, tmp_path):
    data = savedmodel_zip(trained_run)
    with pytest.raises(UntrustedModelError, match="SavedModel is code"):
        open_upload("exported.zip", data, tmp_path / "untrusted")
    model = open_upload("exported.zip", data, tmp_path / "trusted", trust=True)
    assert model.kind == "savedmodel" and [e.name for e in model.endpoints] == ["serve"]
    (endpoint,) = model.endpoints
    windows = windows_from_csv(model, endpoint, sine_frame()[["y"]])
    (answer,) = endpoint.call(windows).values()
    np.testing.assert_allclose(answer, load_serving(trained_run)(windows[0]), atol=1e-5)
    assert model.parameters >= trained_run.meta.parameters  # every variable, the optimizer's left out


def test_a_zip_with_a_file_and_a_folder_of_the_same_name_is_refused(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a", "a file")
        archive.writestr("a/b", "a file in a folder of the same name")
    with pytest.raises(ValueError, match="'clash.zip' holds both a file and a folder named 'a'"):
        open_upload("clash.zip", buffer.getvalue(), tmp_path / "up")


def test_a_bomb_in_a_run_zips_model_is_refused_before_it_is_inflated(trained_run, tmp_path):
    with zipfile.ZipFile(trained_run.keras_path) as source:
        members = {i.filename: source.read(i) for i in source.infolist()}
    model = io.BytesIO()
    with zipfile.ZipFile(model, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in {**members, "config.json": b" " * (20 << 20)}.items():  # 20 MB, about 20 KB deflated
            archive.writestr(name, data)
    run_zip = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(zip_bytes(trained_run))) as source, zipfile.ZipFile(run_zip, "w") as target:
        for item in source.infolist():
            target.writestr(item, model.getvalue() if item.filename.endswith("model.keras") else source.read(item))
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"'bomb.zip/.*model.keras' is too big: its config.json unpacks to more"):
            open_upload("bomb.zip", run_zip.getvalue(), tmp_path / "up")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20  # the run zip itself is a few hundred KB; the 20 MB are never inflated
