import json
import shutil
import sys
import time
import tracemalloc
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
    with pytest.raises(ValueError, match="'.*m.keras' is not a readable zip file"):
        load_keras(tmp_path / "m.keras")


def test_a_config_nested_deeper_than_the_bound_is_refused_before_parsing(trained_run, tmp_path):
    # 150 levels parse in Python, but Keras's deserialising recurses through them: refused from the count.
    nested = json.loads("[" * 150 + "]" * 150)
    deep = rewrite_config(trained_run.keras_path, tmp_path / "deep.keras", lambda c: {**c, "x": nested})
    with pytest.raises(ValueError, match="model config of .*deep.keras' nests arrays or objects more than 100 levels"):
        read_config(deep)


def keras_zip(path, members: dict):
    """A ``.keras``-like zip at ``path`` holding ``members`` (name -> bytes), deflated."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


@pytest.mark.parametrize("member", ["config.json", "model.weights.h5"])
def test_a_compressed_bomb_in_any_member_is_refused_before_it_is_inflated(trained_run, tmp_path, monkeypatch, member):
    monkeypatch.setenv("SEQLAB_MAX_UPLOAD_MB", "1")
    monkeypatch.setenv("SEQLAB_MAX_PARAMETERS", "1000")  # so the archive limit is the upload limit, 1 MB
    with zipfile.ZipFile(trained_run.keras_path) as source:
        members = {i.filename: source.read(i) for i in source.infolist()}
    members[member] = b" " * (20 << 20)  # 20 MB of spaces, about 20 KB deflated
    bomb = keras_zip(tmp_path / "bomb.keras", members)
    assert bomb.stat().st_size < 200_000
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"'.*bomb.keras' is too big: .*unpacks to more than 1.0 MB, the limit"):
            load_keras(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20  # never inflated whole


def test_a_model_asking_for_more_weights_than_the_limit_is_refused_before_they_are_made(tmp_path):
    small = keras.Model(inputs := keras.Input((5,)), keras.layers.Dense(7)(inputs))
    small.save(tmp_path / "small.keras")
    config = json.dumps(read_config(tmp_path / "small.keras"))
    # A few hundred bytes that ask for a 50,000 x 50,000 kernel: 2.5e9 weights, 10 GB of float32.
    wide = config.replace('"units": 7', '"units": 50000').replace("5]", "50000]")
    hostile = keras_zip(tmp_path / "wide.keras", {"config.json": wide})
    assert hostile.stat().st_size < 2000
    started = time.perf_counter()
    with pytest.raises(ValueError, match=r"asks for more than 5,000,000 weights, the limit \(.*SEQLAB_MAX_PARAMETERS"):
        load_keras(hostile)
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize("refused", ["TorchModuleWrapper", "Lambda", "JaxLayer", "FlaxLayer", "TFSMLayer"])
def test_keras_classes_that_carry_code_are_refused_by_name_and_nothing_is_built(trained_run, tmp_path, refused,
                                                                               monkeypatch):
    def change(config):
        layer = next(l for l in config["config"]["layers"] if l["class_name"] == "Dense")
        # TorchModuleWrapper's config carries its module pickled (base64); TFSMLayer a path to load.
        layer.update(module="keras.layers", class_name=refused, registered_name=None,
                     config={"name": layer["config"]["name"], "module": "gASVAAAAAAAAAACMBG5vbmWULg==",
                             "filepath": "/tmp/elsewhere", "function": fn("keras.activations", "relu")})
        return config

    crafted = rewrite_config(trained_run.keras_path, tmp_path / "m.keras", change)
    built = []
    monkeypatch.setattr(keras.layers.Layer, "build", lambda self, *a, **k: built.append(self))
    with pytest.raises(ValueError, match=f"names Keras's {refused}, which .*seqlab refuses to load it"):
        load_keras(crafted)
    assert not built


def test_a_stateful_recurrent_layer_is_refused(tmp_path):
    inputs = keras.Input(batch_shape=(7, 3, 1))  # the state takes batch x units, outside the weights
    keras.Model(inputs, keras.layers.SimpleRNN(4, stateful=True)(inputs)).save(tmp_path / "s.keras")
    with pytest.raises(ValueError, match="makes its 'SimpleRNN' layer stateful"):
        load_keras(tmp_path / "s.keras")
