"""Load a ``.keras`` file only when its config names nothing but Keras's own classes and seqlab's.

A ``.keras`` file is a zip of a ``config.json``, the weights and metadata. It
is opened through the input gate (``seqlab.inputs.open_archive``): its
directory checked (entries, links, paths, a name both a file and a folder), and
every member inflated once, capped at ``archive_limit()`` in all, before Keras
reads any of it; ``config.json`` is read capped at ``KERAS_CONFIG_BYTES`` and
parsed within ``seqlab.bounded_json``'s bounds.

The config names a module and a class for every object, and Keras imports
modules it does not know yet to find them (``keras_hub``, for instance).
seqlab resolves each object itself, without importing anything:

- Keras built-ins: module ``keras`` or ``keras.*``, looked up attribute by
  attribute from the loaded ``keras`` package (only modules of Keras itself on
  the way); functions only from Keras's activations, losses, metrics, ...
  These are safe because their configs hold only numbers, names, shapes and
  other objects resolved the same way, so loading one builds layers, never runs
  a function of the file's choosing. Except the classes in ``REFUSED``, whose
  configs carry code or reach outside the file: ``Lambda`` (a Python function),
  ``TorchModuleWrapper`` (a pickled PyTorch module), ``JaxLayer`` and
  ``FlaxLayer`` (JAX functions, a Flax module) and ``TFSMLayer`` (a SavedModel
  loaded from a server path); and a stateful recurrent layer (a state per
  row of a batch size the config sets, outside the weight limit; seqlab
  saves none);
- seqlab's classes: ``registered_name`` ``seqlab>...``, found in Keras's
  registry (``import seqlab`` fills it);
- plain data markers (tensors, arrays, bytes, slices).

Anything else (module ``os``, ``builtins.eval``, a ``__lambda__``, another
library's layer) is refused with a ``ValueError`` naming it. Then Keras loads
the file with ``safe_mode=True``, within the weight limit
(``seqlab.weight_budget``: ``max_parameters``, counted from the shapes the
config asks for, before each weight is made).
"""

from __future__ import annotations

import contextlib
import os
import types
import zipfile
from typing import Iterator

import keras

import seqlab.models  # noqa: F401  registers seqlab's classes (TaskModel and the layers)
from seqlab.bounded_json import KERAS_CONFIG_BYTES, parse_json
from seqlab.checks import shown
from seqlab.inputs import check_members, open_archive, open_regular, read_member
from seqlab.limits import MB, current_limits
from seqlab.run_meta import RunMeta
from seqlab.tasks import check_model_io
from seqlab.weight_budget import weight_budget

# Keras's own markers for values that are data, not code.
DATA_MARKERS = frozenset({"__keras_tensor__", "__tensor__", "__numpy__", "__bytes__", "__ellipsis__", "__slice__"})
# Keras's own classes that carry code or reach outside the file: refused like another library's class.
REFUSED = {
    "Lambda": "runs a Python function given with it",
    "TorchModuleWrapper": "holds a pickled PyTorch module, and unpickling runs code",
    "JaxLayer": "calls JAX functions given with it (its subclass FlaxLayer: a Flax module)",
    "TFSMLayer": "loads a SavedModel, which is code, from a path on the server",
}
_REFUSED_CLASSES = {getattr(keras.layers, name): name for name in REFUSED if hasattr(keras.layers, name)}
# Where a config may name a function (Keras searches these for module "builtins").
FUNCTION_PATHS = tuple(
    f"keras.{m}"
    for m in ("activations", "constraints", "initializers", "losses", "metrics", "optimizers", "regularizers")
)


def archive_limit() -> int:
    """Bytes a ``.keras`` file may unpack to: the upload limit, or what a model at the weight limit holds (4 bytes a
    weight, two more copies for Adam's moments, and its config), whichever is larger."""
    limits = current_limits()
    return max(limits.max_upload_mb * MB, 16 * limits.max_parameters + MB)


@contextlib.contextmanager
def _archive(path: str | os.PathLike) -> Iterator[zipfile.ZipFile]:
    """The ``.keras`` file at ``path`` as a zip whose directory passed the input gate (``seqlab.inputs``)."""
    with open_regular(path, "model file") as file:
        yield open_archive(file, archive_limit(), _label(path))


def _label(path: str | os.PathLike) -> str:
    return f"The model file {os.fspath(path)!r}"


def _config(archive: zipfile.ZipFile, path: str | os.PathLike) -> dict:
    what = f"The model config of {os.fspath(path)!r}"
    config = parse_json(read_member(archive, "config.json", KERAS_CONFIG_BYTES, _label(path)), what,
                        KERAS_CONFIG_BYTES)  # fmt: skip
    if not isinstance(config, dict):
        raise ValueError(f"{what} is not a JSON object.")
    return config


def read_config(path: str | os.PathLike) -> dict:
    """The ``config.json`` of a ``.keras`` archive, inflated through the input gate (``seqlab.inputs.read_member``,
    at most ``KERAS_CONFIG_BYTES``); ``ValueError`` when the file is not one."""
    with _archive(path) as archive:
        return _config(archive, path)


def _in_keras(name) -> bool:
    return isinstance(name, str) and (name == "keras" or name.startswith("keras."))


def _keras_module(path: str):
    """The Keras module ``path`` names (``keras.layers``), reached by attributes; ``None`` if not Keras's own."""
    module = keras
    for part in path.split(".")[1:]:
        child = getattr(module, part, None)
        # Only real modules of the keras package: never an alias such as a module's ``os`` or ``tf``.
        if not isinstance(child, types.ModuleType) or not _in_keras(child.__name__):
            return None
        module = child
    return module


def _keras_object(module_path, name, kind: type):
    """``module_path.name`` when it is one of Keras's own objects of type ``kind``, else ``None``."""
    if not _in_keras(module_path) or not isinstance(name, str) or name.startswith("_"):
        return None
    module = _keras_module(module_path)
    found = getattr(module, name, None) if module is not None else None
    return found if isinstance(found, kind) and _in_keras(getattr(found, "__module__", None)) else None


def _keras_function(module_path, name):
    paths = FUNCTION_PATHS if module_path == "builtins" else [p for p in FUNCTION_PATHS if p == module_path]
    found = (_keras_object(path, name, types.FunctionType) for path in paths)
    return next((f for f in found if f is not None), None)


def resolve(entry: dict):
    """The class (or function) a config entry names, or ``None`` for a data marker; ``ValueError`` otherwise."""
    name, module, registered = entry.get("class_name"), entry.get("module"), entry.get("registered_name")
    if isinstance(name, str) and name in DATA_MARKERS:
        return None
    found = None
    if isinstance(registered, str) and registered.startswith("seqlab>"):
        found = keras.saving.get_registered_object(registered)
    elif name == "function":
        found = _keras_function(module, entry.get("config"))
    elif registered in (None, name):  # Keras's built-ins carry no other registered name
        found = _keras_object(module, name, type)
        if found is not None and not hasattr(found, "from_config"):
            found = None
    if found is None:
        what = f"function {shown(entry.get('config'))}" if name == "function" else f"class {shown(name)}"
        also = f" (registered name {shown(registered)})" if registered not in (None, name, "function") else ""
        raise ValueError(
            f"The model config names {what} from module {shown(module)}{also}, which is neither Keras's own nor "
            "registered by seqlab; seqlab refuses to load it, and imported nothing. Load only models that seqlab "
            "trained."
        )
    _check_allowed(found, entry)
    return found


def _check_allowed(found, entry: dict) -> None:
    """``ValueError`` for one of Keras's classes in ``REFUSED`` (or a subclass), or a stateful layer."""
    refused = next((n for c, n in _REFUSED_CLASSES.items() if isinstance(found, type) and issubclass(found, c)), None)
    if refused is not None:
        raise ValueError(
            f"The model config names Keras's {found.__name__}, which {REFUSED[refused]}; seqlab refuses to load it "
            "and built nothing. Load only models that seqlab trained."
        )
    config = entry.get("config")
    if isinstance(config, dict) and config.get("stateful") is True:  # seqlab saves none
        raise ValueError(
            f"The model config makes its {shown(entry.get('class_name'))} layer stateful: it would keep a state per "
            "row of its input's batch size, beside its weights and outside the weight limit; seqlab refuses to load "
            "it. Load only models that seqlab trained."
        )


def check_config(config) -> None:
    """Resolve every object entry of a model config (see ``resolve``); ``ValueError`` at the first refused one."""
    pending = [config]  # a loop, not recursion: a deeply nested file cannot exhaust the stack
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            if "class_name" in value:
                resolve(value)
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)


def load_keras(path: str | os.PathLike, meta: RunMeta | None = None) -> keras.Model:
    """The model in a ``.keras`` file, after the checks of the module docstring, in Keras's safe mode.

    With ``meta``, a model whose input or output shape does not fit that run is refused.
    """
    with _archive(path) as archive:
        check_members(archive, archive_limit(), _label(path))  # before Keras reads any of them
        check_config(_config(archive, path))
    try:
        with weight_budget():  # the build stops before a weight past max_parameters
            model = keras.saving.load_model(path, safe_mode=True)
    except (OSError, TypeError, KeyError, zipfile.BadZipFile) as err:  # Keras's errors for a damaged file
        raise ValueError(f"Cannot load the model {os.fspath(path)!r}: {err}") from None
    if meta is not None:
        what = f"The model {os.fspath(path)!r}"
        wanted = len(meta.inputs or [None])  # runs saved before inputs were recorded took one
        if len(model.inputs) != wanted or len(model.outputs) != 1:
            raise ValueError(
                f"{what} has {len(model.inputs)} input(s) and {len(model.outputs)} output(s); this run's model "
                f"has {wanted} and 1: the model does not belong to this run. Delete the run or train it again."
            )
        check_model_io(meta, tuple(model.inputs[0].shape), tuple(model.outputs[0].shape), what)
    return model
