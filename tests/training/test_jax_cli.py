"""``python -m seqlab train --backend jax`` through the product: run folders, ``.keras``, and the SavedModel made by
TensorFlow, in-run (a TensorFlow process) or later (``python -m seqlab export RUN_ID``), serving what JAX computed.

One JAX process trains a tiny GPT with TensorFlow out of reach (no SavedModel: the CLI says so), then a tiny
LSTM with TensorFlow installed (its SavedModel from a TensorFlow process): the JAX process itself never
imports TensorFlow. Each model's prediction on one input, under JAX, is compared with its SavedModel's.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import tensorflow as tf

from seqlab.runs import RunStore

ROOT = Path(__file__).resolve().parents[2]
GPT = ["--dataset", "pydoc", "--model", "gpt", "--set", "tokenizer=char", "--set", "lookback=16", "--set",
       "stride=16", "--set", "embedding_dim=16", "--set", "characters=2000", "--set", "layers=1", "--set",
       "heads=2", "--set", "width=16"]
LSTM = ["--dataset", "sine", "--model", "lstm", "--set", "length=300", "--set", "lookback=12", "--set",
        "horizon=3", "--set", "units=8"]

SCRIPT = """
import contextlib, io, json, sys
import numpy as np
from seqlab.__main__ import run

runs_dir, gpt, lstm = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])

def train(args):
    sys.argv = ["seqlab", "train", "--backend", "jax", "--epochs", "1", "--runs-dir", runs_dir, "--json", *args]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert run() == 0
    result = json.loads(out.getvalue().splitlines()[-1])
    from seqlab.runs import RunStore
    model = RunStore(runs_dir).read(result["run_id"]).load_model()
    shape = (1, *model.inputs[0].shape[1:])
    x = np.arange(np.prod(shape)).reshape(shape) % 7 + 3 if model.inputs[0].dtype.startswith("int") else \\
        np.sin(np.arange(np.prod(shape))).reshape(shape).astype("float32")
    return {**result, "x": x.tolist(), "prediction": np.asarray(model.predict(x, verbose=0)).tolist()}

sys.modules["tensorflow"] = None  # TensorFlow out of reach: no SavedModel now
first = train(gpt)
del sys.modules["tensorflow"]  # installed again: a TensorFlow process exports the LSTM
second = train(lstm)
import keras
print(json.dumps({"backend": keras.backend.backend(), "tensorflow_imported": "tensorflow" in sys.modules,
                  "gpt": first, "lstm": second}))
"""


def seqlab(*args: str, script: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", script, *args] if script else [sys.executable, "-m", "seqlab", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=1800, cwd=ROOT,  # a shared CPU: slow
                          env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()), "TF_CPP_MIN_LOG_LEVEL": "3"})


def served(run_path: str, x: list) -> np.ndarray:
    model = tf.saved_model.load(str(Path(run_path) / "savedmodel"))
    spec = model.serve.concrete_functions[0].structured_input_signature[0][0]
    return model.serve(tf.constant(np.asarray(x), dtype=spec.dtype)).numpy()


def test_train_under_jax_then_export_with_tensorflow(tmp_path):
    trained = seqlab(str(tmp_path), json.dumps(GPT), json.dumps(LSTM), script=SCRIPT)
    assert trained.returncode == 0, trained.stderr[-3000:]
    result = json.loads(trained.stdout.strip().splitlines()[-1])
    assert result["backend"] == "jax" and not result["tensorflow_imported"]
    gpt, lstm = result["gpt"], result["lstm"]
    assert "no SavedModel: TensorFlow is not installed here" in trained.stderr
    assert f"with: python -m seqlab export {gpt['run_id']}\n" in trained.stderr  # once, for the GPT only
    assert trained.stderr.count("no SavedModel") == 1
    for run in (gpt, lstm):
        assert run["status"] == "completed" and all(np.isfinite(v) for v in run["metrics"].values())
        folder = Path(run["path"])
        assert (folder / "model.keras").is_file()
        assert json.loads((folder / "meta.json").read_text())["versions"]["backend"] == "jax"
    assert not (Path(gpt["path"]) / "savedmodel").exists()  # TensorFlow was missing: made later
    assert (Path(lstm["path"]) / "savedmodel" / "saved_model.pb").is_file()  # made by a TensorFlow process

    exported = seqlab("export", gpt["run_id"], "--runs-dir", str(tmp_path))
    assert exported.returncode == 0, exported.stderr[-3000:]
    assert "wrote the SavedModel" in exported.stdout
    runs, broken = RunStore(tmp_path).scan()
    assert not broken and len(runs) == 2  # signed anew: the GPT's run reads back whole, with its SavedModel
    for run in (gpt, lstm):
        np.testing.assert_allclose(served(run["path"], run["x"]), np.asarray(run["prediction"]), atol=1e-4)


def test_numpy_passes_visit_every_window_once_a_pass_as_the_tf_data_pipeline():
    from seqlab.training.experiment import numpy_passes

    x, y = np.arange(12).reshape(6, 2), np.arange(6)
    batches = numpy_passes(x, y, batch_size=2, seed=0)
    passes = [[next(batches) for _ in range(3)] for _ in range(2)]
    for one in passes:
        seen = np.concatenate([batch_y for _, batch_y in one])
        assert sorted(seen) == list(range(6))  # every window once a pass, in whole batches
        for batch_x, batch_y in one:
            np.testing.assert_array_equal(batch_x, x[batch_y])  # inputs and targets stay paired
    orders = [np.concatenate([b[1] for b in one]).tolist() for one in passes]
    assert orders[0] != orders[1]  # reshuffled every pass
    again = numpy_passes(x, y, batch_size=2, seed=0)
    assert [next(again)[1].tolist() for _ in range(3)] == [b[1].tolist() for b in passes[0]]  # seeded
