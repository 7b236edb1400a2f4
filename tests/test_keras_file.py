import json
import shutil
import sys
import zipfile

import keras
import pytest

from seqlab.keras_file import check_config, load_keras, read_config
from seqlab.runs import RunStore


def rewrite_config(source, target, change):
    """A copy of the ``.keras`` file ``source`` at ``target`` with ``change(config)`` as its config."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            data = old.read(item)
            if item.filename == "config.json":
                data = json.dumps(change(json.loads(data))).encode()
            new.writestr(item, data)
    return target


def with_entry(entry):
    """Put ``entry`` where a layer's initializer goes (deep inside the config)."""
    def change(config):
        layer = next(l for l in config["config"]["layers"] if "kernel_initializer" in l["config"])
        layer["config"]["kernel_initializer"] = entry
        return config
    return change


def test_a_run_model_loads_in_safe_mode_and_fits_its_run(trained_run):
    model = trained_run.load_model()
    assert tuple(model.inputs[0].shape) == (None, 50, 1) and tuple(model.outputs[0].shape) == (None, 10)


def obj(module, class_name, registered=None):
    return {"module": module, "class_name": class_name, "config": {}, "registered_name": registered}


def fn(module, name):
    return {"module": module, "class_name": "function", "config": name, "registered_name": "function"}


NAMED_KERAS_MODULE = "keras.src.utils.code_stats"  # a module of Keras that nothing imports


@pytest.mark.parametrize(
    "entry, named",
    [
        (obj("imaplib", "IMAP4"), "'IMAP4' from module 'imaplib'"),
        (fn("os", "system"), "function 'system'"),
        (fn("builtins", "eval"), "function 'eval'"),
        (obj("keras_hub.models", "GemmaBackbone", "keras_hub>GemmaBackbone"), "from module 'keras_hub.models'"),
        # an alias inside a Keras module (its import of os) is not followed
        (obj("keras.src.utils.file_utils.os", "system"), "from module 'keras.src.utils.file_utils.os'"),
        (fn("keras.utils", "get_file"), "function 'get_file'"),  # Keras's, but not an activation, loss, ...
        (obj("keras.layers", "Dense", "evil>Dense"), "evil>Dense"),
        (obj("seqlab.layers", "Nope", "seqlab>Nope"), "seqlab>Nope"),
        ({"class_name": "__lambda__", "config": {"value": "x"}}, "'__lambda__'"),
        # Keras itself would import this module of its own to look for the class: seqlab does not.
        (obj("keras.src.utils.code_stats", "Counter"), "from module 'keras.src.utils.code_stats'"),
    ],
    ids=["other-module", "os-system", "builtins-eval", "keras-hub", "alias", "keras-utility", "other-registered",
         "unregistered-seqlab", "lambda", "unloaded-keras-module"],
)
def test_a_config_naming_anything_else_is_refused_and_nothing_imported(trained_run, tmp_path, entry, named,
                                                                     monkeypatch):
    crafted = rewrite_config(trained_run.keras_path, tmp_path / "m.keras", with_entry(entry))
    for name in [m for m in sys.modules if m.split(".")[0] in ("imaplib", "keras_hub") or m == NAMED_KERAS_MODULE]:
        monkeypatch.delitem(sys.modules, name)  # imported by another test (keras_hub: the sampler tests): hide it
    before = set(sys.modules)
    assert not {"imaplib", "keras_hub", NAMED_KERAS_MODULE} & before
    with pytest.raises(ValueError, match="neither Keras's own nor registered by seqlab") as refused:
        load_keras(crafted)
    assert named in str(refused.value)
    assert set(sys.modules) == before  # nothing imported because the file named it


@pytest.mark.filterwarnings("ignore:Skipping variable loading for optimizer")  # compiled, never trained
def test_keras_built_ins_resolve(tmp_path):
    inputs = keras.Input((5, 2))
    outputs = keras.layers.Dense(2, activation="softmax")(keras.layers.LSTM(3)(inputs))
    model = keras.Model(inputs, outputs)  # module keras.src.models.functional
    model.compile(loss=keras.losses.mean_squared_error, metrics=[keras.metrics.mean_absolute_error])
    model.save(tmp_path / "f.keras")
    check_config(read_config(tmp_path / "f.keras"))
    assert isinstance(load_keras(tmp_path / "f.keras"), keras.Model)


def test_a_swapped_model_with_another_input_shape_is_refused(trained_run, tmp_path):
    other = keras.Sequential([keras.Input((7, 1)), keras.layers.Flatten(), keras.layers.Dense(10)])
    folder = tmp_path / trained_run.run_id
    shutil.copytree(trained_run.path, folder)
    (folder / "manifest.json").unlink()  # as an older run: only the shape check stands in the way
    other.save(folder / "model.keras")
    with pytest.raises(ValueError, match=r"takes inputs \(None, 7, 1\).*does not belong to this run"):
        RunStore(tmp_path).read(trained_run.run_id).load_model()


def test_a_file_that_is_not_a_keras_archive_is_explained(tmp_path):
    (tmp_path / "m.keras").write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(ValueError, match="Cannot read the model config"):
        load_keras(tmp_path / "m.keras")
