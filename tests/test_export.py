import dataclasses
import io
import json
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest

from seqlab.export import UntrustedModelError, export_run, load_serving, predict_frame, windows_from_frame, zip_bytes
from seqlab.runs import RunStore


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
    with pytest.raises(ValueError, match="is a file, so .* cannot be created below it"):
        export_run(trained_run, "zip", archive / "inner.zip")
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
        load_serving(tmp_path, trust=True)


def test_predict_from_rows_refuses_runs_that_are_not_forecasts(trained_run):
    run = dataclasses.replace(trained_run, run_id="r1", meta=dataclasses.replace(trained_run.meta, task="classify"))
    with pytest.raises(ValueError, match="needs a forecast run; run 'r1' is a classify run"):
        predict_frame(run, pd.DataFrame({"y": np.zeros(60)}))


# ---------------------------------------------------------------- where exports go


def test_export_never_writes_inside_the_runs_folder(trained_run, tmp_path):
    root = trained_run.path.parent
    for to in (trained_run.path / "x.zip", root / "other-run" / "m.keras", root, root / "new.zip"):
        with pytest.raises(ValueError, match="inside the runs folder"):
            export_run(trained_run, "zip", to)
    elsewhere = tmp_path / "runs"
    with pytest.raises(ValueError, match="inside the runs folder"):
        export_run(trained_run, "keras", elsewhere / "m.keras", runs_root=elsewhere)
    link = tmp_path / "link"
    link.symlink_to(root, target_is_directory=True)  # a link into the runs folder is followed by the check
    with pytest.raises(ValueError, match="inside the runs folder"):
        export_run(trained_run, "zip", link / "x.zip")
    assert not (root / "new.zip").exists() and not (trained_run.path / "x.zip").exists()


def test_export_never_overwrites(trained_run, tmp_path):
    (tmp_path / "taken.zip").write_text("mine")
    (tmp_path / "dangling.keras").symlink_to(tmp_path / "nowhere.keras")
    for to, fmt in ((tmp_path / "taken.zip", "zip"), (tmp_path / "dangling.keras", "keras"), (tmp_path, "savedmodel")):
        with pytest.raises(ValueError, match="already exists"):
            export_run(trained_run, fmt, to)
    assert (tmp_path / "taken.zip").read_text() == "mine" and not (tmp_path / "nowhere.keras").exists()


def test_keras_export_has_the_keras_suffix(trained_run, tmp_path):
    import keras

    written = export_run(trained_run, "keras", tmp_path / "model")
    assert written == tmp_path / "model.keras" and keras.saving.load_model(written).count_params() > 0
    with pytest.raises(ValueError, match=r"must end in \.keras.*m\.keras"):
        export_run(trained_run, "keras", tmp_path / "m.h5")
    assert not (tmp_path / "m.h5").exists()


def test_zips_and_exports_never_follow_links(trained_run, tmp_path):
    folder = tmp_path / "runs" / trained_run.run_id
    shutil.copytree(trained_run.path, folder)
    (folder / "savedmodel" / "passwd").symlink_to("/etc/passwd")
    run = dataclasses.replace(trained_run, path=folder)
    names = zipfile.ZipFile(io.BytesIO(zip_bytes(run))).namelist()
    assert f"{run.run_id}/savedmodel/saved_model.pb" in names
    assert not any(name.endswith("passwd") for name in names)
    exported = export_run(run, "savedmodel", tmp_path / "served")
    assert (exported / "saved_model.pb").is_file() and not (exported / "passwd").exists()


# ---------------------------------------------------------------- trusting a SavedModel


def test_a_tampered_savedmodel_is_refused(trained_run, tmp_path):
    folder = tmp_path / trained_run.run_id
    shutil.copytree(trained_run.path, folder)
    run = RunStore(tmp_path).read(trained_run.run_id)  # read before the change, as a page may hold it
    fingerprint = folder / "savedmodel" / "fingerprint.pb"
    raw = bytearray(fingerprint.read_bytes())
    raw[-1] ^= 0xFF  # same size: only the hash tells
    fingerprint.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"savedmodel/fingerprint.pb was changed after seqlab wrote it"):
        RunStore(tmp_path).read(trained_run.run_id)  # the store hashes too: the run is broken from now on
    with pytest.raises(UntrustedModelError, match=r"savedmodel/fingerprint.pb was changed.*--trust"):
        load_serving(run)
    with pytest.raises(UntrustedModelError, match="SavedModel is code"):
        predict_frame(run, pd.DataFrame({"y": np.zeros(60)}))
    with pytest.raises(UntrustedModelError):
        load_serving(run.savedmodel_path)  # the folder of a run: same check


def test_a_run_from_another_key_is_refused_unless_trusted(trained_run, tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_HOME", str(tmp_path / "another-user"))
    with pytest.raises(UntrustedModelError, match="not signed with this user's key"):
        predict_frame(trained_run, pd.DataFrame({"y": np.zeros(60)}))
    forecast = predict_frame(trained_run, pd.DataFrame({"y": np.zeros(60)}), trust=True)
    assert len(forecast) == 10
    assert issubclass(UntrustedModelError, ValueError)  # the CLI's one-line error path takes it


def test_a_savedmodel_that_does_not_fit_its_run_is_refused(trained_run, tmp_path):
    import keras

    folder = tmp_path / trained_run.run_id
    shutil.copytree(trained_run.path, folder)
    shutil.rmtree(folder / "savedmodel")
    (folder / "manifest.json").unlink()  # an older run: trusted by hand, the shape check still stands
    keras.Sequential([keras.Input((7, 1)), keras.layers.Flatten(), keras.layers.Dense(10)]).export(
        str(folder / "savedmodel"), verbose=False
    )
    run = RunStore(tmp_path).read(trained_run.run_id)
    with pytest.raises(ValueError, match=r"takes inputs \(None, 7, 1\).*does not belong to this run"):
        load_serving(run, trust=True)


def test_a_run_keeps_its_task_inputs_and_assets_and_the_zip_carries_them(trained_run):
    import io
    import zipfile

    assert trained_run.meta.inputs == [{"name": "window", "shape": [50, 1], "dtype": "float32"}]
    assert trained_run.meta.assets == ["scaler.json"] and (trained_run.path / "scaler.json").is_file()
    names = zipfile.ZipFile(io.BytesIO(zip_bytes(trained_run))).namelist()
    assert f"{trained_run.run_id}/scaler.json" in names
