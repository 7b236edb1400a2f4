"""A model a user uploads: a ``.keras`` file, a seqlab run zip, or a zipped SavedModel, opened safely.

- ``.keras``: ``seqlab.keras_file.load_keras`` (only Keras's and seqlab's classes, safe mode), so no code runs;
- a run zip (what the Models page's "Download zip" gives): its ``model.keras`` the same way, checked
  against its ``meta.json``; a CSV then goes through the task's ``frame_window`` (the checks of
  ``seqlab predict --input``) and a text classifier's text through its ``tokenizer.json``;
- a zipped SavedModel: a SavedModel is code and an upload carries no signed manifest, so it loads only
  when the caller says it trusts it (``UntrustedModelError`` otherwise, as ``seqlab.export``).

The upload is read through ``seqlab.inputs.read_bytes`` (the server's size limit); an archive is
unpacked (``seqlab.inputs.open_archive`` and ``unpack_archive``) only after its directory passed: at
most ``MAX_ARCHIVE_ENTRIES`` entries, their declared sizes within the limit (and the inflated streams
capped too), no absolute paths, ``..``, links, encrypted entries, or a name both a file and a folder.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable

import numpy as np
import pandas as pd

from seqlab.bounded_json import RECORD_BYTES, read_json
from seqlab.export import UntrustedModelError, _load_trusted
from seqlab.inputs import InputLimits, input_limits, open_archive, read_bytes, unpack_archive
from seqlab.run_meta import RunMeta

SAVED_MODEL = "saved_model.pb"


@dataclass
class Endpoint:
    """One way to call the model: its inputs ``[(name, shape, dtype)]`` (batch axis first) and ``call``."""

    name: str
    inputs: list[tuple[str, tuple, str]]
    outputs: str
    call: Callable[[list[np.ndarray]], object] = field(repr=False)

    @property
    def reads_text(self) -> bool:
        return len(self.inputs) == 1 and self.inputs[0][2] == "string"


@dataclass
class UploadedModel:
    """What the upload is (``kind``: ``keras``, ``run`` or ``savedmodel``), its endpoints and parameter count.

    ``meta``: a run zip's ``meta.json`` (features, classes), else ``None``; ``tokenizer``: a text run's.
    """

    name: str
    kind: str
    endpoints: list[Endpoint]
    parameters: int | None
    meta: RunMeta | None = None
    tokenizer: object | None = None


def open_upload(name: str, source, folder: Path, trust: bool = False,
                limits: InputLimits | None = None) -> UploadedModel:  # fmt: skip
    """Check, unpack into ``folder`` (new or empty) and load the uploaded model ``name``; ``ValueError`` saying
    what is wrong with it, ``UntrustedModelError`` for a SavedModel without ``trust``."""
    limits = limits or input_limits()
    what = "model file" if getattr(source, "name", None) else f"model file {name!r}"  # an upload names itself
    data = read_bytes(source, limits, what=what, raw=True)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        return _open(name, data, folder, trust, limits)
    except ValueError as err:  # name the upload, never the server's temporary folder
        message = str(err).replace(repr(str(folder / "model.keras")), repr(name)).replace(str(folder), name)
        raise type(err)(message) from None


def _open(name: str, data: bytes, folder: Path, trust: bool, limits: InputLimits) -> UploadedModel:
    suffix = PurePosixPath(name).suffix.lower()
    if suffix == ".keras":
        path = folder / "model.keras"
        path.write_bytes(data)
        return _keras(name, path, "keras", None)
    if suffix != ".zip":
        raise ValueError(f"{name!r} is neither a .keras file nor a .zip: upload a Keras model file (.keras), a "
                         "zipped SavedModel folder, or a run zip from this page's Download zip.")
    unzip_checked(name, data, folder, limits.max_decompressed_bytes)
    kept = [p for p in folder.rglob("*") if p.is_file()]
    keras_files = [p for p in kept if p.name == "model.keras" and (p.parent / "meta.json").is_file()]
    if keras_files:
        return _run_zip(name, keras_files[0].parent)
    saved = [p.parent for p in kept if p.name == SAVED_MODEL]
    if len(saved) != 1:
        raise ValueError(f"The zip {name!r} holds {len(saved)} SavedModel folders ({SAVED_MODEL}); it must hold "
                         "exactly one: zip the SavedModel folder alone, or upload a run zip.")
    return _saved_model(name, saved[0], trust)


def unzip_checked(name: str, data: bytes, folder: Path, limit: int) -> None:
    """Unpack the archive's plain files into ``folder`` after checking its directory (module docstring)."""
    label = f"The zip {name!r}"
    unpack_archive(open_archive(data, limit, label), folder, limit, label)


def _keras(name: str, path: Path, kind: str, meta: RunMeta | None) -> UploadedModel:
    from seqlab.keras_file import load_keras

    model = load_keras(path, meta)
    inputs = [(t.name, tuple(t.shape), _dtype(t.dtype)) for t in model.inputs]

    def call(arrays):
        return model.predict(arrays if len(arrays) > 1 else arrays[0], verbose=0)

    outputs = ", ".join(shape_text(tuple(t.shape)) for t in model.outputs)
    return UploadedModel(name, kind, [Endpoint("predict", inputs, outputs, call)], int(model.count_params()), meta)


def _run_zip(name: str, folder: Path) -> UploadedModel:
    try:
        meta = RunMeta.from_dict(read_json(folder / "meta.json", "meta.json", RECORD_BYTES))
    except ValueError as err:
        raise ValueError(f"The run zip {name!r} has an unreadable meta.json ({err}): download the run again.") from None
    model = _keras(name, folder / "model.keras", "run", meta)
    from seqlab.tasks import get_task

    if meta.input_dtype == "int32":
        try:
            model.tokenizer = get_task(meta.task).load_assets(folder).get("tokenizer")
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise ValueError(f"The run zip {name!r} has an unreadable tokenizer.json ({err}).") from None
    return model


def _saved_model(name: str, path: Path, trust: bool) -> UploadedModel:
    if not trust:
        raise UntrustedModelError(
            f"{name!r} is a SavedModel, and a SavedModel is code (loading it runs its graph); an upload carries no "
            "seqlab signature. Load it only if you trust where it came from."
        )
    import tensorflow as tf

    served, _ = _load_trusted(path, trust=True)
    endpoints = []
    for key, function in sorted(served.signatures.items()):
        if key == "serving_default" and len(served.signatures) > 1:
            continue  # the same function as "serve"
        specs = function.structured_input_signature[1]  # signatures take keyword arguments
        inputs = [(k, tuple(s.shape.as_list()), _dtype(s.dtype)) for k, s in sorted(specs.items())]
        answers = function.structured_outputs.items()
        outputs = ", ".join(f"{k} {shape_text(tuple(t.shape.as_list()))}" for k, t in answers)

        def call(arrays, function=function, inputs=inputs):
            given = {k: tf.constant(a, dtype=d) for (k, _, d), a in zip(inputs, arrays)}
            answer = function(**given)
            return {k: v.numpy() for k, v in answer.items()}

        endpoints.append(Endpoint(key, inputs, outputs, call))
    parameters = sum(int(np.prod(v.shape)) for v in getattr(served, "variables", []))
    return UploadedModel(name, "savedmodel", endpoints, parameters or None)


def _dtype(dtype) -> str:
    text = getattr(dtype, "name", str(dtype))
    return "string" if text in ("string", "object") else text


def shape_text(shape: tuple) -> str:
    """``(None, 50, 1)``: a shape as Keras prints it."""
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ")"


def windows_from_csv(model: UploadedModel, endpoint: Endpoint, frame: pd.DataFrame) -> list[np.ndarray]:
    """The endpoint's inputs ``(1, T, F)`` from a table: a run zip through its task's ``frame_window`` (the CLI's
    checks), another model from the last ``T`` rows of its ``F`` numeric columns."""
    from seqlab.tasks import get_task

    meta = model.meta
    if meta is not None and meta.task in _frame_tasks():
        inputs = get_task(meta.task).frame_window(meta, frame)
        return list(inputs) if isinstance(inputs, list) else [inputs]
    if len(endpoint.inputs) != 1 or len(endpoint.inputs[0][1]) != 3 or endpoint.inputs[0][2] == "string":
        raise ValueError(f"A CSV gives one numeric input (N, T, F); this model's {endpoint.name} takes "
                         f"{', '.join(f'{n} {shape_text(s)} {d}' for n, s, d in endpoint.inputs)}.")
    _, (_, steps, features), dtype = endpoint.inputs[0]
    numeric = frame.select_dtypes("number")
    if features is not None and numeric.shape[1] != features:
        raise ValueError(f"The CSV has {numeric.shape[1]} numeric column(s) {list(numeric.columns)[:10]}; the model "
                         f"reads {features} feature(s) per step: give exactly {features} numeric column(s).")
    if steps is not None and len(numeric) < steps:
        raise ValueError(f"The CSV has {len(numeric)} rows; the model reads windows of {steps} steps: give at "
                         f"least {steps} rows (the last {steps} are used).")
    values = numeric.to_numpy(dtype="float32")[-steps if steps else 0:]
    if not np.isfinite(values).all():
        raise ValueError("The rows used contain NaN or infinite values; fill them first.")
    return [values[None].astype(dtype if dtype != "string" else "float32")]


def _frame_tasks() -> set[str]:
    from seqlab.tasks import list_tasks

    return {t.name for t in list_tasks() if t.frame_window is not None}


def predict_texts(model: UploadedModel, endpoint: Endpoint, texts: list[str]):
    """The endpoint's answer to raw ``texts``: a SavedModel's string endpoint, or a run zip's model after its
    tokeniser (the first ``T`` tokens, as its training sentences)."""
    empty = [i + 1 for i, t in enumerate(texts) if not str(t).strip()]
    if not texts or empty:
        raise ValueError(f"Text number(s) {empty or [1]} are empty: give every text some words.")
    if endpoint.reads_text:
        return endpoint.call([np.asarray(texts, dtype=object)])
    if model.tokenizer is None:
        raise ValueError(f"This model's {endpoint.name} takes numbers, not text: upload a CSV instead.")
    length = endpoint.inputs[0][1][1] or max(len(model.tokenizer.encode(t)) for t in texts)
    ids, _ = model.tokenizer.pad_and_mask([model.tokenizer.encode(t) for t in texts], length, keep="first")
    return endpoint.call([ids])


def cleanup(folder: Path) -> None:
    """Forget an unpacked upload."""
    shutil.rmtree(folder, ignore_errors=True)
