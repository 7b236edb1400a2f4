"""Which layers of a saved ``.keras`` model are recurrent, read from its config without loading it.

Loading a model builds every layer and reads its weights; listing the runs
that can be inspected only needs the layer classes named in ``config.json``.
"""

from __future__ import annotations

import importlib
import json
import os
import zipfile

import keras

import seqlab.layers  # noqa: F401  registers seqlab's layers, so their names resolve


def _layer_class(entry: dict):
    registered = entry.get("registered_name")
    if registered:
        cls = keras.saving.get_registered_object(registered)
        if cls is not None:
            return cls
    module, name = entry.get("module"), entry.get("class_name")
    # Only Keras's and seqlab's own modules: a config file never makes us import anything else.
    if not module or not name or module.split(".")[0] not in ("keras", "seqlab"):
        return None
    try:
        return getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None


def _recurrent(entry: dict) -> bool:
    cls = _layer_class(entry)
    if cls is None or not isinstance(cls, type):
        return False
    if issubclass(cls, keras.layers.Bidirectional):
        inner = entry.get("config", {}).get("layer")
        return isinstance(inner, dict) and _recurrent(inner)
    return issubclass(cls, keras.layers.RNN)


def _walk(entry: dict, found: list[str]) -> None:
    config = entry.get("config", {})
    if _recurrent(entry):
        found.append(config.get("name", entry.get("class_name", "?")))
        return
    for child in config.get("layers", []) if isinstance(config, dict) else []:
        if isinstance(child, dict):
            _walk(child, found)


def saved_recurrent_layers(path: str | os.PathLike) -> list[str]:
    """Names of the recurrent layers (``RNN`` subclasses, ``Bidirectional`` around one) in a ``.keras`` file.

    Returns an empty list for a model without one; raises ``ValueError`` for a
    file that is not a readable ``.keras`` archive.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            config = json.loads(archive.read("config.json"))
    except (OSError, KeyError, zipfile.BadZipFile, json.JSONDecodeError) as err:
        raise ValueError(f"Cannot read the model config of {os.fspath(path)!r}: {err}") from None
    found: list[str] = []
    _walk(config, found)
    return found
