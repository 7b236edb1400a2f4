"""Load a ``.keras`` file only when its config names nothing but Keras's own classes and seqlab's.

A ``.keras`` file's ``config.json`` names a module and a class for every
object, and Keras imports modules it does not know yet to find them
(``keras_hub``, for instance). seqlab reads the config first and resolves each
object itself, without importing anything:

- Keras built-ins: module ``keras`` or ``keras.*``, looked up attribute by
  attribute from the loaded ``keras`` package (only modules of Keras itself on
  the way); functions only from Keras's activations, losses, metrics, ...;
- seqlab's classes: ``registered_name`` ``seqlab>...``, found in Keras's
  registry (``import seqlab`` fills it);
- plain data markers (tensors, arrays, bytes, slices).

Anything else (module ``os``, ``builtins.eval``, a ``__lambda__``, another
library's layer) is refused with a ``ValueError`` naming it. Then Keras loads
the file with ``safe_mode=True``.
"""

from __future__ import annotations

import json
import os
import types
import zipfile

import keras

import seqlab.models  # noqa: F401  registers seqlab's classes (TaskModel and the layers)
from seqlab.checks import shown
from seqlab.run_meta import RunMeta

# Keras's own markers for values that are data, not code.
DATA_MARKERS = frozenset({"__keras_tensor__", "__tensor__", "__numpy__", "__bytes__", "__ellipsis__", "__slice__"})
# Where a config may name a function (Keras searches these for module "builtins").
FUNCTION_PATHS = tuple(
    f"keras.{m}"
    for m in ("activations", "constraints", "initializers", "losses", "metrics", "optimizers", "regularizers")
)


def read_config(path: str | os.PathLike) -> dict:
    """The ``config.json`` of a ``.keras`` archive; ``ValueError`` when the file is not one."""
    try:
        with zipfile.ZipFile(path) as archive:
            config = json.loads(archive.read("config.json"))
    except (OSError, KeyError, zipfile.BadZipFile, json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise ValueError(f"Cannot read the model config of {os.fspath(path)!r}: {err}") from None
    if not isinstance(config, dict):
        raise ValueError(f"The model config of {os.fspath(path)!r} is not a JSON object.")
    return config


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
    return found


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
    """The model in a ``.keras`` file, after ``check_config``, in Keras's safe mode.

    With ``meta``, a model whose input or output shape does not fit that run is refused.
    """
    check_config(read_config(path))
    try:
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
        meta.check_model_io(tuple(model.inputs[0].shape), tuple(model.outputs[0].shape), what)
    return model
