"""Every new architecture's SavedModel serves in a fresh process that never imports seqlab."""

import numpy as np

from seqlab.models import build_model
from seqlab.models.esn import fit_readout
from seqlab.training import ExperimentSpec
from tests.fresh_process import without_seqlab

CASES = {  # name -> (model, task, options)
    "simple_rnn": ("simple_rnn", "regress", {"units": 3, "activation": "relu", "identity_init": True}),
    "lstm": ("lstm", "classify", {"units": 3, "variant": "gates_only", "bidirectional": True}),
    "gru": ("gru", "label", {"units": 3, "reset_after": False}),
    "esn": ("esn", "forecast", {"units": 10}),
}


def test_savedmodels_serve_without_seqlab(tiny, tmp_path):
    expected = {}
    for name, (arch, task, options) in CASES.items():
        data = tiny[task]
        model = build_model(arch, data, options)
        if arch == "esn":
            model.compile("adam", "mse")
            fit_readout(model, data, ExperimentSpec("sine", "esn", model_options=options).resolved(), [])
        x = data.splits["test"].x[:2]
        np.save(tmp_path / f"{name}.npy", x)
        model.export(str(tmp_path / name), verbose=False)
        expected[name] = model.predict(x, verbose=0)
    result = without_seqlab(f"""
import json
import numpy as np, tensorflow as tf
out = {{}}
for name in {list(CASES)!r}:
    served = tf.saved_model.load({str(tmp_path)!r} + "/" + name)
    out[name] = served.serve(tf.constant(np.load({str(tmp_path)!r} + "/" + name + ".npy"))).numpy().tolist()
print(json.dumps({{"out": out}}))
""", tmp_path)
    assert result["seqlab"] is False
    for name, y in expected.items():
        np.testing.assert_allclose(result["out"][name], y, atol=1e-5, err_msg=name)
