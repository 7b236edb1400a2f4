"""The GPT's and BERT's layers, optimizer and compiled step under Keras's JAX backend, with TensorFlow out of reach.

``bench/gpt_jax.py`` and ``bench/bert_jax.py`` train this way on a GPU; these are those
paths on tiny models, in fresh processes where ``import tensorflow`` fails.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

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


BERT_SCRIPT = """
import sys
sys.modules["tensorflow"] = None
import json, keras, numpy as np
from seqlab.data.bert_pretraining import BERT_TEXT_DEFAULTS, bert_pair_data
from seqlab.models import build_model
from seqlab.training import ExperimentSpec
from seqlab.training.optimizer import compile_model

texts = [f"the film {i} is {'good' if i % 2 else 'dull'} and the plot is {'thin' if i % 3 else 'fine'} ." for i in range(80)]
data = bert_pair_data("tiny", texts, {**BERT_TEXT_DEFAULTS, "max_tokens": 16})
sizes = {"layers": 1, "heads": 2, "width": 16, "ff_units": 32}
spec = ExperimentSpec("movie_reviews_mlm", "bert", {}, sizes, epochs=1, batch_size=8).resolved()
model = compile_model(build_model("bert", data, sizes), spec, data)
seeds = [np.array(model.masking_seed.state.value)]
train = data.splits["train"]
for _ in range(2):
    history = model.fit(train.x[:16], train.y[:16], batch_size=8, epochs=1, verbose=0)
    seeds.append(np.array(model.masking_seed.state.value))
print(json.dumps({"backend": keras.backend.backend(), "logs": {k: float(v[-1]) for k, v in history.history.items()},
                  "seeds": [s.tolist() for s in seeds], "steps": int(model.optimizer.iterations.numpy())}))
"""


def run_without_tensorflow(script: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
        cwd=Path(__file__).resolve().parents[2], env={"PATH": "/usr/bin:/bin", "KERAS_BACKEND": "jax",
                                                       "HOME": str(Path.home())},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_gpt_trains_under_jax_without_tensorflow():
    result = run_without_tensorflow(SCRIPT)
    assert result["backend"] == "jax"
    assert result["steps"] == 4
    assert np.isfinite(result["loss"]) and result["loss"] < np.log(200)  # below a uniform guess over bytes
    assert result["changed"] == result["weights"]  # every weight took a step


def test_bert_pretrains_under_jax_and_masks_every_batch_anew():
    result = run_without_tensorflow(BERT_SCRIPT)
    assert result["backend"] == "jax" and result["steps"] == 4
    logs = result["logs"]
    assert all(np.isfinite(logs[k]) for k in ("loss", "mlm_loss", "nsp_loss"))
    assert logs["loss"] == pytest.approx(logs["mlm_loss"] + logs["nsp_loss"], rel=1e-4)
    first, second, third = result["seeds"]
    assert first != second != third  # the masking seed moved on: the next batches get new masks
