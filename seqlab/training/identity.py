"""A run's identity: what determines a trained run, as one SHA-256.

    identity = SHA-256 of {the resolved spec (seed included), the data's content hash, the code version,
                           the Keras backend}

Two runs of one identity were trained with the same settings on the same data
by the same code: the second would only repeat the first (a lesson's seeded
runs), so a lesson serves the first (``RunStore.find_identical``,
``JobManager.submit``). ``run_experiment`` writes it into ``meta.json``.

The data's hash covers the loaded frame and every split's arrays (what the run
trains and is scored on), so a changed file or download changes it; the code
version is seqlab's version and a hash of the package's ``.py`` sources, read
once per process.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from pathlib import Path

import keras
import numpy as np
import pandas as pd

import seqlab
from seqlab.data import SequenceData, load_dataset
from seqlab.training.spec import ExperimentSpec

PACKAGE = Path(seqlab.__file__).parent


def source_hash(package: Path) -> str:
    """SHA-256 of every ``.py`` file under ``package``, by relative path (a renamed module changes it too)."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        source = path.read_bytes()
        digest.update(f"{path.relative_to(package).as_posix()}\0{len(source)}\0".encode())
        digest.update(source)
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """``0.1.0+<16 hex digits>``: seqlab's version and its sources' hash, computed once per process."""
    return f"{seqlab.__version__}+{source_hash(PACKAGE)[:16]}"


def _add(digest, label: str, value: bytes) -> None:
    digest.update(f"{label}\0{len(value)}\0".encode())  # length-prefixed: no two inputs run into one
    digest.update(value)


def _add_array(digest, label: str, array) -> None:
    if array is None:
        _add(digest, label, b"none")
        return
    array = np.asarray(array)
    if array.dtype == object:  # Python objects (strings): their values, not their addresses
        _add(digest, f"{label} object {array.shape}", json.dumps(array.tolist(), default=str).encode())
    else:
        _add(digest, f"{label} {array.dtype.str} {array.shape}", np.ascontiguousarray(array).tobytes())


def _add_frame(digest, frame: pd.DataFrame) -> None:
    _add(digest, "columns", json.dumps([[str(c), str(t)] for c, t in frame.dtypes.items()]).encode())
    try:
        rows = pd.util.hash_pandas_object(frame, index=True).to_numpy()
    except TypeError:  # cells pandas cannot hash (lists): their JSON
        rows = np.frombuffer(frame.to_json(orient="split", default_handler=str).encode(), dtype=np.uint8)
    _add_array(digest, "rows", rows)


def data_hash(data: SequenceData) -> str:
    """SHA-256 of the data a run trains on: the loaded frame and every split's arrays."""
    digest = hashlib.sha256()
    _add_frame(digest, data.frame)
    for name in sorted(data.splits):
        split = data.splits[name]
        for field in dataclasses.fields(split):
            _add_array(digest, f"{name}.{field.name}", getattr(split, field.name))
    return digest.hexdigest()


def _identity(spec: ExperimentSpec, digest: str) -> str:
    # The Keras backend too: a run trained under JAX is not the TensorFlow one.
    parts = {"spec": spec.to_dict(), "data": digest, "code": code_version(), "backend": keras.config.backend()}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def run_identity(spec: ExperimentSpec, data: SequenceData) -> str:
    """The identity of training ``spec`` on ``data`` (loaded from ``spec.dataset``) with this code."""
    return _identity(spec.resolved(), data_hash(data))


@functools.lru_cache(maxsize=256)
def _fixed_data_hash(dataset: str, options_json: str) -> str:
    return data_hash(load_dataset(dataset, **json.loads(options_json)))


def spec_identity(spec: ExperimentSpec) -> str:
    """``run_identity`` of ``spec`` before it trains: its data loaded (its hash kept for this process, except for a
    file not pinned by its ``sha256``, which may change between two calls)."""
    spec = spec.resolved()
    options = spec.data_options
    if options.get("path") and not options.get("sha256"):
        digest = data_hash(load_dataset(spec.dataset, **options))
    else:
        digest = _fixed_data_hash(spec.dataset, json.dumps(options, sort_keys=True))
    return _identity(spec, digest)
