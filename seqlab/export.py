"""Export a run (SavedModel, .keras, zip) and serve its SavedModel.

The SavedModel takes the task's inputs (``meta.json["inputs"]``): for the
numeric tasks, sequences ``(N, T, F)`` in the data's own units, features
in the order of ``meta.json["features"]``; it returns what the task predicts:
``(N, H)`` forecasts or regression values, ``(N, C)`` class probabilities
(classify), ``(N, T, C)`` per-step class probabilities (label; class names in
``meta.json["classes"]``), ``(N, T, V)`` next-token probabilities (language,
token ids in, the vocabulary in ``tokenizer.json``). A language run's
SavedModel also has ``next_log_probs``: a batch of raw strings ``(N,)`` in,
the ``(N, V)`` log-probabilities of the token after each string out (its
tokeniser runs in the graph). It serves in a process that never imports seqlab:

    import tensorflow as tf
    served = tf.saved_model.load("saved_models/<run_id>/savedmodel")
    forecast = served.serve(tf.constant(window, tf.float32))

The zip (``zip_bytes``) adds ``USAGE.md``: that code for the run's own inputs
and endpoints, and how to load ``model.keras`` with seqlab.

A SavedModel is code: ``load_serving`` loads one only when the run's signed
manifest (``seqlab.manifest``) shows seqlab wrote it on this machine and
nothing changed since, unless the caller says it trusts the model.
Exports never write inside the runs folder, never overwrite, never follow
links out of a run folder, and never leave a partial file: each is written
under a hidden name beside its destination and renamed into place.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from seqlab.inputs import read_csv  # noqa: F401  predict --input reads through the shared input gate
from seqlab.manifest import MANIFEST, regular_files, verify_folder
from seqlab.run_name import NAME_FILE
from seqlab.runs import Run
from seqlab.tasks import TASK_KINDS, check_model_io, get_task, task_for

FORMATS = ("savedmodel", "keras", "zip")
# And the task's assets (meta.assets); history, predictions and name let "Add to my runs" (seqlab.run_import) store
# the zip as a whole run, with its curves and test views.
ZIP_FILES = ("model.keras", "spec.json", "meta.json", "metrics.json", "history.json", "predictions.npz", NAME_FILE)
USAGE = "USAGE.md"  # the zip's usage snippet, written by ``usage_text``
TRUST_LABEL = "I trust this model, load it"  # the dashboard's confirmation, named in the refusal


class UntrustedModelError(ValueError):
    """A SavedModel that seqlab did not write on this machine, or that changed after; loading it runs its code."""


def _files(run: Run, under: str = "") -> list[str]:
    """The run's plain files (links skipped: they could point anywhere), optionally under one folder."""
    return [name for name in regular_files(run.path) if name.startswith(under)]


def zip_bytes(run: Run) -> bytes:
    """The SavedModel folder, ``model.keras``, the run's JSON files and test predictions, the task's assets and
    ``USAGE.md``, zipped in memory (links left out)."""
    wanted = {*ZIP_FILES, *run.meta.assets}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in _files(run):
            if name in wanted or name.startswith("savedmodel/"):
                archive.write(run.path / name, f"{run.run_id}/{name}")
        archive.writestr(f"{run.run_id}/{USAGE}", usage_text(run))
    return buffer.getvalue()


def _example(spec: dict, meta) -> str:
    """Python for a batch of one made-up input of ``spec`` (``{"name", "shape", "dtype"}`` of ``meta.inputs``)."""
    shape = tuple(meta.lookback or 1 if d is None else d for d in spec["shape"])
    if spec.get("dtype") == "string":
        return f'np.full({(1, *shape)}, "some text")'
    fill, dtype = ("ones", "np.int32") if spec.get("dtype") == "int32" else ("zeros", "np.float32")
    return f"np.{fill}({(1, *shape)}, {dtype})"


def _input_notes(spec: dict, meta) -> str:
    if spec.get("dtype") == "int32":
        return "token ids of the run's tokenizer.json"
    if spec["name"] == "future":
        return f"the known columns {meta.known} over the horizon, in their own units"
    return f"features {meta.features} in this order, in their own units"


def usage_text(run: Run) -> str:
    """``USAGE.md`` of the run's zip: how to serve its SavedModel with TensorFlow alone and load ``model.keras``.

    The code names the run's own endpoints, input names, shapes and dtypes (``meta.json["inputs"]``).
    """
    meta, run_id = run.meta, run.run_id
    specs = meta.inputs or [{"name": "window", "shape": meta.input_shape, "dtype": "float32"}]
    inputs = "\n".join(f"{s['name']} = {_example(s, meta)}  # {_input_notes(s, meta)}" for s in specs)
    lines = [inputs]
    names = [s["name"] for s in specs]
    argument = f"[{', '.join(f'tf.constant({n})' for n in names)}]" if len(names) > 1 else f"tf.constant({names[0]})"
    task = TASK_KINDS.get(meta.task) if meta.task in TASK_KINDS else None
    out = f"(1, {', '.join('?' if d is None else str(d) for d in task.outputs(meta))})" if task else "one per input"
    lines.append(f"prediction = served.serve({argument}).numpy()  # {out}")
    endpoint = task.text_endpoint if task and meta.input_dtype != "float32" else None
    if endpoint:
        # The text endpoint runs the run's tokeniser inside the graph: raw strings in.
        lines.append(f'prediction = served.{endpoint.name}(tf.constant(["{endpoint.example}"])){endpoint.result}'
                     ".numpy()  # raw text in")
    body = "\n".join(lines)
    classes = f"\nClass names, in the order of the last axis: {meta.classes}.\n" if meta.classes else ""
    model_input = names[0] if len(names) == 1 else f"[{', '.join(names)}]"
    later = "" if run.has_savedmodel else (
        f"\n**This run was trained without its SavedModel**: make it with `python -m seqlab export {run_id}` (or "
        "on the dashboard's Models page) and download the zip again, or load `model.keras` as below.\n")
    return f"""# {run_id}: {meta.model} on {meta.dataset} ({meta.task})

This folder holds the run's TensorFlow SavedModel (`savedmodel/`), its Keras model (`model.keras`),
`spec.json` (how it was trained), `meta.json` (inputs, features, units, classes), `metrics.json`
(test scores) and the files its task needs ({", ".join(meta.assets) or "none"}).
{classes}{later}
## Serve the SavedModel with TensorFlow alone

Run this where you unzipped the archive (beside `{run_id}/`); it needs only `tensorflow` and `numpy`:

```python
import numpy as np
import tensorflow as tf

served = tf.saved_model.load("{run_id}/savedmodel")
print(sorted(served.signatures))  # the endpoints it serves
{body}
print(prediction)
```

A SavedModel is code (loading it runs its graph): load one only from someone you trust.

## Load model.keras with seqlab

```python
import numpy as np
from seqlab.keras_file import load_keras  # refuses any class that is neither Keras's nor seqlab's

{inputs}
model = load_keras("{run_id}/model.keras")
prediction = model.predict({model_input}, verbose=0)
print(prediction)
```

`keras.saving.load_model` works too once `import seqlab.models` has registered seqlab's layers.
"""


def _destination(to: str | Path, fmt: str, runs_root: Path) -> Path:
    """Where ``export_run`` writes: checked to be new and outside the runs folder, ``.keras`` added for keras."""
    to = Path(to).expanduser()
    if fmt == "keras":
        if not to.suffix:
            to = to.with_name(to.name + ".keras")  # Keras loads only files named *.keras
        elif to.suffix != ".keras":
            raise ValueError(f"A Keras model file must end in .keras (Keras refuses to load it otherwise): "
                             f"use {to.with_suffix('.keras')} instead of {to}.")
    root, resolved = runs_root.resolve(), to.resolve()
    if resolved == root or root in resolved.parents:
        raise ValueError(f"{to} lies inside the runs folder {runs_root}; export to a path outside it.")
    if to.exists() or to.is_symlink():  # a dangling link too: writing would follow it
        raise ValueError(f"{to} already exists; choose a new path or delete it first.")
    existing = next(parent for parent in to.absolute().parents if parent.exists())
    if not existing.is_dir():
        raise ValueError(f"{existing} is a file, so {to} cannot be created below it; choose another path.")
    return to


def export_run(run: Run, fmt: str, to: str | Path, runs_root: str | Path | None = None) -> Path:
    """Copy the run's model to ``to`` as a SavedModel folder, a ``.keras`` file or a zip; the path written.

    ``to`` must not exist and must lie outside ``runs_root`` (default: the
    folder holding the run). For ``keras`` a path without a suffix gets
    ``.keras`` (the returned path says so); another suffix is refused. A write
    that fails (a full disk) leaves nothing at ``to``: ``ValueError`` naming it.
    """
    if fmt not in FORMATS:
        raise ValueError(f"Unknown export format {fmt!r}; valid formats: {', '.join(FORMATS)}.")
    to = _destination(to, fmt, Path(runs_root) if runs_root is not None else run.path.parent)
    if fmt == "keras" and "model.keras" not in _files(run):
        raise ValueError(f"Run {run.run_id!r} has no model.keras file (missing, or a link).")
    if fmt == "savedmodel" and not run.has_savedmodel:
        raise ValueError(f"Run {run.run_id!r} was trained without its SavedModel: make it first with "
                         f"python -m seqlab export {run.run_id}.")
    made = [folder for folder in reversed(to.absolute().parents) if not folder.exists()]  # removed on failure
    # Written under a hidden name beside ``to``, then renamed: a full disk never leaves a partial export at ``to``.
    staging = to.with_name(f".{to.name}.seqlab-export-{secrets.token_hex(4)}")
    try:
        to.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "savedmodel":
            staging.mkdir()
            for name in _files(run, "savedmodel/"):
                target = staging / Path(name).relative_to("savedmodel")
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(run.path / name, target)
        elif fmt == "keras":
            with open(run.keras_path, "rb") as source, open(staging, "xb") as target:
                shutil.copyfileobj(source, target)
        else:
            with open(staging, "xb") as target:
                target.write(zip_bytes(run))
        if os.path.lexists(to):  # appeared meanwhile: never overwrite
            raise FileExistsError(errno.EEXIST, "it appeared while exporting", str(to))
        os.rename(staging, to)
    except BaseException as err:
        if staging.is_dir():
            shutil.rmtree(staging, ignore_errors=True)
        else:
            staging.unlink(missing_ok=True)
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()
        if isinstance(err, OSError):
            raise ValueError(f"Could not export run {run.run_id!r} to {to}: {err.strerror or err}; nothing was left "
                             "there (free some space, or choose another destination).") from None
        raise
    return to


def _trust_problem(source: Run | str | Path) -> str | None:
    """Why the SavedModel of ``source`` cannot be trusted (``None``: seqlab wrote it here, unchanged)."""
    if isinstance(source, Run):
        return verify_folder(source.path)
    path = Path(source)
    if path.name == "savedmodel" and (path.parent / MANIFEST).is_file():
        return verify_folder(path.parent)
    return f"it is not the savedmodel/ folder of a seqlab run (no {MANIFEST} beside it)"


def _load_trusted(source: Run | str | Path, trust: bool):
    """``(the loaded SavedModel, its path)``, after the trust check of ``load_serving``."""
    path = source.savedmodel_path if isinstance(source, Run) else Path(source)
    if isinstance(source, Run) and not source.has_savedmodel:  # trained without it (RunMeta.savedmodel_later)
        raise ValueError(f"Run {source.run_id!r} has no SavedModel yet: make it with python -m seqlab export "
                         f"{source.run_id} (where TensorFlow is installed).")
    problem = None if trust else _trust_problem(source)
    if problem:
        raise UntrustedModelError(
            f"Not loading the SavedModel {path}: a SavedModel is code (loading it runs its graph), and this one "
            f"was not written by seqlab on this machine, or was changed after ({problem}). Load it only if you "
            f'trust where it came from: pass --trust on the command line, press "{TRUST_LABEL}" on the '
            "dashboard's Models page, or call with trust=True."
        )
    import tensorflow as tf

    try:
        return tf.saved_model.load(str(path)), path
    except (OSError, ValueError, tf.errors.OpError) as err:
        raise ValueError(f"{path} is not a readable SavedModel ({type(err).__name__}).") from None


def predict_texts(run: Run, texts: list[str], trust: bool = False) -> pd.DataFrame:
    """Answers to raw ``texts`` from a text run's SavedModel (its task's ``text_endpoint``), checked like
    ``load_serving``, as the task's ``text_answer`` table.

    A classifier gives one row per text: the text, the most probable class and
    every class's probability. A tagger gives one row per token: the text's
    number, the token and its most probable tag.
    """
    task = task_for("predict_texts", run.meta.task, run.run_id)
    if run.meta.input_dtype != "int32":
        raise ValueError(
            f"Run {run.run_id!r} is a {task.name} run trained on numbers ({run.meta.dataset!r}), not on text: it "
            "takes --input CSV rows; --text needs a run trained on a text dataset."
        )
    empty = [i + 1 for i, t in enumerate(texts) if not str(t).strip()]
    if empty:
        raise ValueError(f"Text number(s) {empty} are empty: give every text some words.")
    served, path = _load_trusted(run, trust)
    endpoint = task.text_endpoint.name
    if not hasattr(served, endpoint):
        raise ValueError(f"{path} has no {endpoint} endpoint: it was exported before text runs had one; "
                         "train the run again.")
    import tensorflow as tf

    output = getattr(served, endpoint)(tf.constant(list(texts))).numpy()
    return task.text_answer(run.meta, run.load_tokenizer(), list(texts), output)


def text_notes(run: Run, texts: list[str]) -> list[str]:
    """What the text run's tokeniser makes of ``texts`` that the answer does not show: texts trimmed to the
    run's window, and unknown tokens (a text of unknown tokens only: its answer says nothing about its words)."""
    from seqlab.text import UNK_ID

    tokenizer, notes = run.load_tokenizer(), []
    for n, text in enumerate(texts, start=1):
        ids = tokenizer.encode(text)
        if len(ids) > run.meta.lookback:
            notes.append(f"text {n} has {len(ids)} {tokenizer.kind} tokens; the model read its first "
                         f"{run.meta.lookback}.")
        unknown = sum(i == UNK_ID for i in ids)
        if ids and unknown == len(ids):
            notes.append(f"every token of text {n} is unknown to the run's tokeniser ([UNK]): its answer says "
                         "nothing about its words; use words from the training data.")
        elif unknown:
            notes.append(f"{unknown} of the {len(ids)} tokens of text {n} are unknown to the run's tokeniser "
                         "([UNK]): the model reads them as one token it never learnt.")
    return notes


def load_serving(source: Run | str | Path, trust: bool = False):
    """Load a run's (or a folder's) SavedModel and return ``f(windows) -> predictions`` on NumPy arrays.

    Without ``trust``, only a SavedModel whose run manifest verifies (see
    ``seqlab.manifest``) is loaded; otherwise ``UntrustedModelError``. A run's
    SavedModel whose input or output shape does not fit the run is refused.
    """
    import tensorflow as tf

    served, path = _load_trusted(source, trust)
    try:
        signature = served.serve.concrete_functions[0]
        argument = signature.structured_input_signature[0][0]  # one TensorSpec, or a list for several inputs
        specs = list(argument) if isinstance(argument, (list, tuple)) else [argument]
        inputs = tuple(specs[0].shape.as_list())
        outputs = tuple(signature.structured_outputs.shape.as_list())
    except (OSError, ValueError, AttributeError, IndexError, TypeError, tf.errors.OpError) as err:
        raise ValueError(f"{path} is not a readable SavedModel with a serve endpoint ({type(err).__name__}).") from None
    if isinstance(source, Run):
        check_model_io(source.meta, inputs, outputs, f"The SavedModel {path}")

    def serve(inputs: np.ndarray | list[np.ndarray]) -> np.ndarray:
        given = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(given) != len(specs):
            names = ", ".join(s.name for s in specs)
            raise ValueError(f"The SavedModel takes {len(specs)} input(s) ({names}); got {len(given)}.")
        # Each input's own dtype: float32 windows today, token ids or text for other tasks.
        tensors = [tf.constant(np.asarray(x), dtype=s.dtype) for x, s in zip(given, specs)]
        return served.serve(tensors if len(specs) > 1 else tensors[0]).numpy()

    return serve


def windows_from_frame(run: Run, frame: pd.DataFrame) -> np.ndarray:
    """The model's inputs ``(1, ...)`` from a table of recent rows, checked, when the run's task can make them."""
    return task_for("predict_frame", run.meta.task, run.run_id).frame_window(run.meta, frame)


def predict_frame(run: Run, frame: pd.DataFrame, trust: bool = False) -> pd.DataFrame:
    """What the run's SavedModel (``load_serving``) predicts from the recent rows in ``frame``, as the task's
    ``frame_answer`` table (a forecast: the ``horizon`` steps after the history, one row each).

    For a run with known future inputs, ``frame``'s last ``horizon`` rows are
    the steps to forecast, with those columns filled (``Task.frame_window``).
    """
    windows = windows_from_frame(run, frame)  # check the input before loading the model
    return get_task(run.meta.task).frame_answer(run.meta, load_serving(run, trust=trust)(windows))
