"""The GPT's layers, optimizer and compiled step under Keras's JAX backend, with TensorFlow out of reach.

``bench/gpt_jax.py`` trains the GPT preset this way on a GPU; this is that
path on a tiny model, in a fresh process where ``import tensorflow`` fails.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

SCRIPT = """
import sys
sys.modules["tensorflow"] = None  # any import of TensorFlow now fails
import dataclasses, json
import keras, numpy as np
import seqlab
from bench.gpt_jax import random_batches
from seqlab.data import load_dataset
from seqlab.models import build_model
from seqlab.training.optimizer import compile_model
from seqlab.training.presets import GPT_SHAKESPEARE

spec = dataclasses.replace(
    GPT_SHAKESPEARE, dataset="pydoc", steps=4, epochs=1, steps_per_execution=2,
    data_options={"tokenizer": "char", "lookback": 16, "stride": 16, "embedding_dim": 16, "characters": 4000},
    model_options={"layers": 1, "heads": 2, "width": 16, "dropout": 0.0},
).resolved()
data = load_dataset(spec.dataset, **spec.data_options)
model = compile_model(build_model(spec.model, data, spec.model_options), spec, data)
before = [w.numpy().copy() for w in model.trainable_weights]
train = data.splits["train"]
history = model.fit(random_batches(train.x, train.y, 4, 0), steps_per_epoch=4, epochs=1, verbose=0)
changed = sum(not np.allclose(a, w.numpy()) for a, w in zip(before, model.trainable_weights))
print(json.dumps({"backend": keras.backend.backend(), "loss": float(history.history["loss"][-1]),
                  "changed": changed, "weights": len(before), "steps": int(model.optimizer.iterations.numpy())}))
"""


def test_gpt_trains_under_jax_without_tensorflow():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300,
        cwd=Path(__file__).resolve().parents[2], env={"PATH": "/usr/bin:/bin", "KERAS_BACKEND": "jax",
                                                       "HOME": str(Path.home())},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["backend"] == "jax"
    assert result["steps"] == 4
    assert np.isfinite(result["loss"]) and result["loss"] < np.log(200)  # below a uniform guess over bytes
    assert result["changed"] == result["weights"]  # every weight took a step
