"""``import seqlab`` registers seqlab's Keras classes, in either import order, without importing Keras itself."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import keras
import numpy as np
import pytest

import seqlab.layers

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO), "TF_CPP_MIN_LOG_LEVEL": "3"}


def python(code: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300, env=ENV, cwd=cwd
    )


@pytest.fixture(scope="module")
def saved_lstm(tmp_path_factory) -> tuple[Path, np.ndarray, np.ndarray]:
    """A tiny model around seqlab's LSTM saved as ``.keras``, an input and its output."""
    folder = tmp_path_factory.mktemp("registration")
    inputs = keras.Input(shape=(5, 2))
    model = keras.Model(inputs, keras.layers.Dense(1)(seqlab.layers.LSTM(3)(inputs)))
    x = np.random.default_rng(0).normal(size=(2, 5, 2)).astype("float32")
    path = folder / "tiny.keras"
    model.save(path)
    np.save(folder / "x.npy", x)
    return path, x, model.predict(x, verbose=0)


@pytest.mark.parametrize("imports", ["import seqlab; import keras", "import keras; import seqlab",
                                     "import seqlab; import tensorflow; import keras"])
def test_import_seqlab_alone_lets_keras_load_a_saved_seqlab_layer(saved_lstm, imports):
    path, x, expected = saved_lstm
    out = python(
        f"""
        {imports}
        import numpy as np
        model = keras.saving.load_model({str(path)!r})
        print(type(model.layers[1]).__module__)
        np.save("y.npy", model.predict(np.load("x.npy"), verbose=0))
        """,
        cwd=path.parent,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-1] == "seqlab.layers.recurrent.lstm"
    np.testing.assert_allclose(np.load(path.parent / "y.npy"), expected, rtol=1e-5)


def test_import_seqlab_does_not_import_keras_and_a_find_spec_probe_registers_nothing(tmp_path):
    out = python(
        """
        import importlib.util, sys
        import seqlab
        assert "keras" not in sys.modules and "tensorflow" not in sys.modules
        importlib.util.find_spec("keras")   # a probe, as TensorFlow makes: nothing is imported
        assert "keras" not in sys.modules and "seqlab.layers" not in sys.modules
        import keras
        assert "seqlab.layers" in sys.modules
        assert keras.saving.get_registered_object("seqlab>TaskModel") is not None
        assert not any(type(f).__name__ == "_AfterKeras" for f in sys.meta_path)  # one shot
        print("ok")
        """,
        cwd=tmp_path,
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_importing_seqlab_main_runs_nothing(tmp_path):
    out = python("import seqlab.__main__; print('imported')", cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "imported" and "usage" not in out.stderr


def test_import_seqlab_registers_every_layer_a_run_may_save(tmp_path):
    # Every seqlab>... class of seqlab's modules (found by importing them all here) is known to a fresh process
    # after `import seqlab; import keras` alone: the safe loader refuses any name that is not.
    import pkgutil

    import seqlab.models  # noqa: F401  registers the architectures, whose builders import the rest

    for module in pkgutil.walk_packages(seqlab.layers.__path__, "seqlab.layers."):
        __import__(module.name)
    import seqlab.models.task_model  # noqa: F401

    names = sorted(n for n in keras.saving.get_custom_objects() if n.startswith("seqlab>"))
    assert {"seqlab>AttentionDecoder", "seqlab>BahdanauAttention", "seqlab>TaskModel"} <= set(names)
    out = python(f"""
        import seqlab; import keras
        missing = [n for n in {names!r} if keras.saving.get_registered_object(n) is None]
        print(missing)
        """, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[-2] == "[]"
