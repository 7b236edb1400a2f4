"""TensorBoard event files for a run, so ``tensorboard --logdir saved_models`` shows every run.

    <run>/tensorboard/train/        batch_loss, batch_grad_norm, batch_learning_rate at every global step;
                                    epoch_loss, epoch_<metric>, epoch_learning_rate at every epoch (1-based);
                                    projector_config.pbtxt and embedding_<n>.tsv (+ labels): each
                                    embedding matrix for the Embedding Projector
    <run>/tensorboard/validation/   epoch_loss, epoch_<metric>: Keras's val_ logs, beside train's in one chart

They are written from the run's events (``seqlab.training.events``) when the
run folder is written, so every fit (``model.fit``, truncated BPTT, a closed-form
solve) and every backend gets the same files, and the run's signed manifest
covers them like any other file (``seqlab.manifest``). ``batch_loss`` is that
batch's own loss (the event's ``batch_loss``), not Keras's running mean.
"""

from __future__ import annotations

from pathlib import Path

import keras
import numpy as np

FOLDER = "tensorboard"
PROJECTOR_CONFIG = "projector_config.pbtxt"
# Not curves of a batch: its place, and the running mean (batch_loss, the batch's own, is written as loss).
_NOT_SCALARS = ("type", "epoch", "step", "global_step", "elapsed", "loss", "batch_loss")


def missing_reason() -> str | None:
    """Why no event files can be written here (the tensorboard package is missing), else ``None``."""
    try:
        import tensorboard.summary  # noqa: F401
    except ImportError:
        return "TensorBoard is not installed, so this run gets no event files: pip install tensorboard==2.21.0"
    return None


def write_event_files(folder: Path, history: dict, started: float, model=None, tokenizers=()) -> None:
    """The run's curves (``history``: its batch and epoch events; ``started``: the Unix time training began,
    which their ``elapsed`` counts from) and, for a ``model`` with embeddings, the projector's files, under
    ``folder`` (``<run>/tensorboard``); ``tokenizers`` label a matrix whose rows match one's vocabulary."""
    from tensorboard.summary import Writer  # TensorBoard's own event writer: no TensorFlow needed

    train = folder / "train"
    writers = {"train": Writer(str(train)), "validation": Writer(str(folder / "validation"))}
    for event in history.get("batch", []):
        scalars = {"loss": event.get("batch_loss"), **{k: v for k, v in event.items() if k not in _NOT_SCALARS}}
        _scalars(writers["train"], "batch_", scalars, event["global_step"], started + event["elapsed"])
    for event in history.get("epoch", []):
        logs = {k: v for k, v in event.items() if k not in ("type", "epoch", "elapsed")}
        at = (event["epoch"], started + event["elapsed"])
        _scalars(writers["train"], "epoch_", {k: v for k, v in logs.items() if not k.startswith("val_")}, *at)
        _scalars(writers["validation"], "epoch_", {k[4:]: v for k, v in logs.items() if k.startswith("val_")}, *at)
    for writer in writers.values():
        writer.close()
    if model is not None:
        write_projector(train, model, tokenizers)


def _scalars(writer, prefix: str, values: dict, step: int, wall_time: float) -> None:
    for name, value in values.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            writer.add_scalar(prefix + name, value, step, wall_time=wall_time)


def write_projector(folder: Path, model, tokenizers=()) -> list[str]:
    """Each embedding matrix of ``model`` (its weights named ``embeddings``: Keras's Embedding layers) as a TSV
    with a projector config beside it; rows labelled with the tokens of the first tokenizer whose
    vocabulary has as many entries. Paths in the config are relative: the run folder can move. The
    matrices' names, in order."""
    blocks, names = [], []
    for n, weight in enumerate(w for w in model.weights if w.name == "embeddings"):
        matrix = keras.ops.convert_to_numpy(weight).astype(np.float32)
        tensor = f"embedding_{n}.tsv"
        np.savetxt(folder / tensor, matrix, delimiter="\t", fmt="%.6g")
        block = f'embeddings {{\n  tensor_name: "{weight.path}"\n  tensor_path: "{tensor}"\n'
        vocab = next((t.vocab for t in tokenizers if t is not None and len(t.vocab) == len(matrix)), None)
        if vocab is not None:
            labels = f"embedding_{n}_labels.tsv"
            # One label a line, no header (a single column); the projector shows a tab or newline badly.
            (folder / labels).write_text("".join(_label(token) + "\n" for token in vocab), encoding="utf-8")
            block += f'  metadata_path: "{labels}"\n'
        blocks.append(block + "}\n")
        names.append(weight.path)
    if blocks:
        (folder / PROJECTOR_CONFIG).write_text("".join(blocks), encoding="utf-8")
    return names


def _label(token: str) -> str:
    return token.replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r") or "''"
