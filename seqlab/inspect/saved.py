"""Which layers of a saved ``.keras`` model are recurrent (or traced), read from its config without loading it.

Loading a model builds every layer and reads its weights; listing the runs
that can be inspected only needs the layer classes named in ``config.json``.
Those are resolved as ``seqlab.keras_file`` does before any load: Keras's
own classes and seqlab's registered ones, nothing imported.
"""

from __future__ import annotations

import os
from typing import Callable

import keras

from seqlab.keras_file import check_config, read_config, resolve


def _config(entry: dict) -> dict:
    config = entry.get("config")
    return config if isinstance(config, dict) else {}


def _recurrent(entry: dict) -> bool:
    cls = resolve(entry)
    if not isinstance(cls, type):
        return False
    if issubclass(cls, keras.layers.Bidirectional):
        inner = _config(entry).get("layer")
        return isinstance(inner, dict) and _recurrent(inner)
    return issubclass(cls, keras.layers.RNN)


def _traced(entry: dict) -> bool:
    """A recurrent layer, or one of a class that ``trace`` has a probe for (an HMM)."""
    from seqlab.inspect.trace import PROBES  # filled by the probe modules, which import this package

    cls = resolve(entry)
    return _recurrent(entry) or (isinstance(cls, type) and any(c in PROBES for c in cls.__mro__))


def _walk(entry: dict, found: list[str], wanted: Callable[[dict], bool]) -> None:
    config = _config(entry)
    if wanted(entry):
        found.append(str(config.get("name", entry.get("class_name", "?"))))
        return
    layers = config.get("layers", [])
    for child in layers if isinstance(layers, list) else []:
        if isinstance(child, dict):
            _walk(child, found, wanted)


def _saved_layers(path: str | os.PathLike, wanted: Callable[[dict], bool]) -> list[str]:
    config = read_config(path)
    check_config(config)
    found: list[str] = []
    _walk(config, found, wanted)
    return found


def saved_recurrent_layers(path: str | os.PathLike) -> list[str]:
    """Names of the recurrent layers (``RNN`` subclasses, ``Bidirectional`` around one) in a ``.keras`` file.

    Returns an empty list for a model without one; raises ``ValueError`` for a
    file that is not a readable ``.keras`` archive or whose config names a
    class that seqlab does not load (see ``seqlab.keras_file``).
    """
    return _saved_layers(path, _recurrent)


def saved_traced_layers(path: str | os.PathLike) -> list[str]:
    """Names of the layers ``trace`` looks inside (recurrent layers, HMMs) in a ``.keras`` file.

    Errors as ``saved_recurrent_layers``.
    """
    return _saved_layers(path, _traced)
