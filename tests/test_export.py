import json
import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest

from seqlab.export import export_run, load_serving, predict_frame, windows_from_frame
from seqlab.runs import Run


def test_savedmodel_serves_in_a_fresh_process_without_seqlab(trained_run, tmp_path):
    exported = export_run(trained_run, "savedmodel", tmp_path / "served")
    window = trained_run.predictions  # noqa: F841  (keeps the fixture's files alive)
    x = np.random.default_rng(0).normal(size=(3, 50, 1)).astype("float32")
    np.save(tmp_path / "x.npy", x)
    script = f"""
import sys, json
import numpy as np, tensorflow as tf
served = tf.saved_model.load({str(exported)!r})
y = served.serve(tf.constant(np.load({str(tmp_path / 'x.npy')!r}))).numpy()
print(json.dumps({{"shape": list(y.shape), "seqlab": "seqlab" in sys.modules, "y": y.tolist()}}))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120, env={"PATH": "/usr/bin:/bin", "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["shape"] == [3, 10] and result["seqlab"] is False
    np.testing.assert_allclose(result["y"], trained_run.load_model().predict(x, verbose=0), atol=1e-5)


def test_keras_and_zip_exports(trained_run, tmp_path):
    keras_file = export_run(trained_run, "keras", tmp_path / "m.keras")
    assert keras_file.stat().st_size > 0
    archive = export_run(trained_run, "zip", tmp_path / "run.zip")
    names = zipfile.ZipFile(archive).namelist()
    assert f"{trained_run.run_id}/model.keras" in names
    assert f"{trained_run.run_id}/savedmodel/saved_model.pb" in names
    with pytest.raises(ValueError, match="already exists"):
        export_run(trained_run, "zip", archive)
    with pytest.raises(ValueError, match="valid formats"):
        export_run(trained_run, "onnx", tmp_path / "x")


def test_predict_frame_uses_the_last_lookback_rows(trained_run):
    frame = pd.DataFrame({"y": np.sin(np.arange(80) / 8.0)})
    forecast = predict_frame(trained_run, frame)
    expected = load_serving(trained_run.savedmodel_path)(frame[["y"]].tail(50).to_numpy()[None])[0]
    np.testing.assert_allclose(forecast["y"], expected, atol=1e-6)
    assert list(forecast["step"]) == list(range(1, 11))


@pytest.mark.parametrize(
    "frame, message",
    [
        (pd.DataFrame({"z": np.zeros(60)}), "lacks column"),
        (pd.DataFrame({"y": np.zeros(10)}), "at least 50"),
        (pd.DataFrame({"y": ["a"] * 60}), "not numeric"),
        (pd.DataFrame({"y": [np.nan] * 60}), "NaN"),
    ],
)
def test_bad_prediction_input_is_explained(trained_run, frame, message):
    with pytest.raises(ValueError, match=message):
        windows_from_frame(trained_run, frame)


def test_a_corrupt_savedmodel_is_explained(tmp_path):
    (tmp_path / "saved_model.pb").write_bytes(b"garbage")
    with pytest.raises(ValueError, match="not a readable SavedModel"):
        load_serving(tmp_path)


def test_predict_from_rows_refuses_runs_that_are_not_forecasts(tmp_path):
    run = Run("r1", tmp_path, spec={}, meta={"task": "classify", "features": ["a"], "lookback": 2}, metrics={})
    with pytest.raises(ValueError, match="needs a forecast run; run 'r1' is a classify run"):
        predict_frame(run, pd.DataFrame({"a": [1.0, 2.0]}))
