"""Task: a plug-in that says everything a task kind needs, from the model's inputs to the run's files.

Every model is ``inputs -> preprocessor -> body -> task head``: the
architecture owns the body; the task owns the rest. It declares

- its **inputs** (name, shape, dtype of each: float windows today, token ids
  or strings next) and its **preprocessor**, a Keras layer built from the
  data (``Normalization`` for numbers, a tokeniser for text) that sits inside
  the model, so the SavedModel serves raw inputs alone;
- its **head**, **loss** and training **metrics**;
- how it **predicts** on the test inputs (plain ``model.predict``, or through
  a decoding function);
- its **evaluation**: test **metrics** with units and direction
  (``seqlab.tasks.metrics``) against its **baselines**;
- the **assets** it saves beside a run's model (scaler statistics today,
  tokeniser and vocabulary next), inside the run folder so that the signed
  manifest covers them;
- what a run's model must output (``outputs``);
- the SavedModel's endpoints (``export``): ``serve`` on the task's inputs,
  and for text a raw-string endpoint (``text_endpoint``);
- what a finished run can do (``can``, one of ``USES``): predict from a
  table of recent rows (``frame_window``, ``frame_answer``), answer raw texts
  (``text_answer``), generate, translate, fill in blanks, be fine-tuned.

``run_experiment``, ``build_task_model``, the CLI, export and the dashboard
ask the task; nothing branches on a task's name. A kind lives in its package
``seqlab.tasks.<name>``, whose ``task`` module registers its ``Task`` with
``register_task``; its name is in ``TASKS``. ``TASK_KINDS`` imports those
modules on its first read, so the modules below the tasks that name a run's
task (``seqlab.run_meta``, ``seqlab.tasks.translate.translation``) never import a kind.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from seqlab.data.sequence_data import TASKS, SequenceData
from seqlab.registry import Registry
from seqlab.tasks.loss_scale import LossScale, plain_scale
from seqlab.tasks.numeric import InputSpec, load_scaler, numeric_inputs, save_scaler, scale_inputs
from seqlab.tasks.metrics import METRICS, TARGET_UNIT, Metric
from seqlab.tasks.metrics import get_metric as registered_metric

if TYPE_CHECKING:
    from pathlib import Path

    import keras  # heads import Keras when they build: reading a task's metrics must not import TensorFlow
    import pandas as pd

    from seqlab.run_meta import RunMeta
    from seqlab.text import Tokenizer

EVAL_BATCH_SIZE = 256  # predict and evaluate in large batches: no gradients are kept

# What a finished run can do besides its test predictions (``Task.can``), as messages name it.
USES = {
    "predict_frame": "Predicting from a table of recent rows (predict --input)",
    "predict_texts": "Answering raw texts (predict --text)",
    "generate": "Generating text (generate)",
    "translate": "Translating texts (translate)",
    "fill_in": "Filling in [MASK] blanks (fill-in)",
    "fine_tune": "Fine-tuning from its encoder (pretrained=RUN_ID)",
}


@dataclass(frozen=True)
class Evaluation:
    """Test-split metrics of the model and its baselines, and the arrays behind them.

    ``predictions`` goes to ``predictions.npz``: at least ``y_true``, ``y_pred``
    and ``origin``, plus ``baseline_<name>`` for every baseline.
    """

    metrics: dict
    predictions: dict[str, np.ndarray]


def serve_archive(model: keras.Model) -> keras.export.ExportArchive:
    """An export archive with the model's ``serve`` endpoint (the task's inputs in, its outputs out) and its
    ``variables``, ``trainable_variables`` and ``non_trainable_variables``, as ``model.export`` builds it, but
    without tracking the model: a tracked model is walked for lookup tables at writing, which traces its call
    once more (3.8 s for the Bahdanau seq2seq of the encoder-decoder lesson)."""
    import keras

    # As model.export's ``serve``: one argument, the model's inputs as built (one tensor or a list), any batch.
    signature = keras.tree.map_structure(
        lambda x: keras.InputSpec(shape=(None, *x.shape[1:]), dtype=x.dtype, name=x.name), model.input
    )
    archive = keras.export.ExportArchive()
    archive.add_endpoint("serve", model.__call__, [signature])
    for name in ("variables", "trainable_variables", "non_trainable_variables"):
        archive.add_variable_collection(name, getattr(model, name))
    return archive


def export_serve(model: keras.Model, data: SequenceData, path: Path) -> None:
    """The SavedModel with the one ``serve`` endpoint."""
    serve_archive(model).write_out(str(path), verbose=False)


def plain_predict(model: keras.Model, x: np.ndarray) -> np.ndarray:
    """``model.predict`` in large batches: one forward pass, no decoding."""
    return model.predict(x, batch_size=EVAL_BATCH_SIZE, verbose=0)


@dataclass(frozen=True)
class TextEndpoint:
    """A SavedModel endpoint that takes a batch of raw strings (the run's tokeniser runs in the graph).

    ``example`` is a text to call it on in a run's ``USAGE.md``; ``result`` the
    output to read when it returns several (``["top_tokens"]``).
    """

    name: str
    example: str = "a text of your own"
    result: str = ""


@dataclass(frozen=True)
class Task:
    """A task kind.

    Attributes:
        name: one of ``TASKS``.
        sequence_outputs: the body returns every step ``(B, T, d)`` (label)
            rather than the last one ``(B, d)``.
        loss, metrics: what ``model.compile`` gets.
        head: ``(data, features, *other_inputs) -> outputs``, the layers
            after the body; ``other_inputs`` are the prepared inputs after the
            first (a forecast's known future inputs). ``None`` for a task whose
            architectures build the whole model (an encoder-decoder's decoder
            is its architecture's, not the task's).
        evaluate: ``(data, outputs) -> Evaluation`` from what ``predict``
            returned on ``data.splits["test"].inputs``; it computes the baselines.
        outputs: ``(meta) -> shape`` after the batch axis that a run's model
            must return (refuses a model swapped in from another run).
        readout: name of the head's linear ``Dense`` layer, for architectures
            that fit it in closed form (None: no linear readout).
        readout_targets: ``(data, y) -> targets`` of that ``Dense`` layer
            (what it must output for the model to output ``y``).
        test_metrics: what ``evaluate`` reports, in the order shown, with
            their units and direction; the first is the one the task is judged by.
        baselines: one sentence saying what the baselines predict.
        inputs: ``(data) -> (InputSpec, ...)``, the model's inputs.
        preprocessor: ``(data) -> keras layer`` (or a function of Keras
            tensors) applied to the inputs inside the model; with several
            inputs it returns one tensor per input, the first for the body,
            the rest for the head.
        predict: ``(model, x) -> outputs`` on test inputs.
        save_assets: ``(folder, data) -> [file names]`` writes what the run
            needs beside its model into the run folder; ``load_assets``:
            ``(folder) -> dict`` reads it back (empty for a run that has none).
        series: the data is one long series cut into windows (the frame is
            indexed by time, ``origin`` is a row): views show times, and
            truncated BPTT applies.
        frame_window: ``(meta, frame) -> (1, ...) inputs`` from a table of
            recent rows, when the task can predict from one (None: it cannot);
            ``frame_answer``: ``(meta, output) -> table`` of what the model
            predicted from them.
        text_endpoint: the SavedModel's raw-string endpoint of a run trained on
            text (None: it has none).
        text_answer: ``(meta, tokenizer, texts, output) -> table`` of what that
            endpoint returned for ``texts``, when the task answers texts
            (``predict --text``).
        uses: what else a finished run does (keys of ``USES``: ``generate``,
            ``translate``, ``fill_in``, ``fine_tune``); ``can`` answers for all.
        target_per_sequence: the target is one value per sequence, repeated on
            the rows of its steps (a regression), rather than one per row.
        causal: the output at step t may read only the inputs up to t (a
            language model predicts the next token): bodies that read later
            steps, such as bidirectional layers, are refused.
        export: ``(model, data, path)`` writes the run's SavedModel folder:
            a ``serve`` endpoint on the task's inputs, plus any the task adds
            (a language run's raw-string endpoint).
        curve: ``(unit, data_options) -> LossScale``, how its loss curves read
            (``seqlab.tasks.loss_scale``); None: the loss itself.
        callbacks: ``(data) -> [keras.callbacks.Callback]`` that training runs before
            its own, e.g. one that adds a task's validation figure to every epoch's
            logs (a translation's free-running loss); None: none.
    """

    name: str
    sequence_outputs: bool
    loss: str
    metrics: tuple[str, ...]
    evaluate: Callable[[SequenceData, np.ndarray], Evaluation]
    outputs: Callable[[RunMeta], tuple]
    head: Callable[..., keras.KerasTensor] | None = None
    readout: str | None = None
    readout_targets: Callable[[SequenceData, np.ndarray], np.ndarray] | None = None
    test_metrics: tuple[Metric, ...] = ()
    baselines: str = ""
    inputs: Callable[[SequenceData], tuple[InputSpec, ...]] = numeric_inputs
    preprocessor: Callable[[SequenceData], Callable] = scale_inputs
    predict: Callable[[keras.Model, np.ndarray], np.ndarray] = plain_predict
    save_assets: Callable[[Path, SequenceData], list[str]] = save_scaler
    load_assets: Callable[[Path], dict] = load_scaler
    series: bool = False
    frame_window: Callable[[RunMeta, pd.DataFrame], np.ndarray] | None = None
    causal: bool = False
    export: Callable[[keras.Model, SequenceData, Path], None] = export_serve
    curve: Callable[[str, dict], LossScale] | None = None
    callbacks: Callable[[SequenceData], list] | None = None
    frame_answer: Callable[[RunMeta, np.ndarray], pd.DataFrame] | None = None
    text_endpoint: TextEndpoint | None = None
    text_answer: Callable[[RunMeta, Tokenizer, list[str], np.ndarray], pd.DataFrame] | None = None
    uses: tuple[str, ...] = ()
    target_per_sequence: bool = False

    def __post_init__(self):
        unknown = sorted(set(self.uses) - set(USES))
        if unknown:
            raise ValueError(f"Task {self.name!r} declares unknown use(s) {unknown}; valid uses: {', '.join(USES)}.")
        if (self.frame_window is None) != (self.frame_answer is None):
            raise ValueError(f"Task {self.name!r}: frame_window and frame_answer go together (both or neither).")
        if self.text_answer is not None and self.text_endpoint is None:
            raise ValueError(f"Task {self.name!r} answers texts (text_answer) but serves no text_endpoint.")

    def can(self, use: str) -> bool:
        """Whether a finished run of this task can do ``use`` (a key of ``USES``)."""
        if use not in USES:
            raise ValueError(f"Unknown use {use!r}; valid uses: {', '.join(USES)}.")
        found = {"predict_frame": self.frame_window is not None, "predict_texts": self.text_answer is not None}
        return found.get(use, use in self.uses)

    def loss_scale(self, unit: str = "", data_options: dict | None = None) -> LossScale:
        """How this task's loss curves read, for data in ``unit`` with the dataset's (resolved) options."""
        return self.curve(unit, data_options or {}) if self.curve else plain_scale(self.loss, unit)

    @property
    def in_target_unit(self) -> bool:
        """Its outputs are values in the target's unit (its metrics are errors in that unit)."""
        return any(m.unit == TARGET_UNIT for m in self.test_metrics)


def against_baselines(metric: Callable, y_true: np.ndarray, y_pred: np.ndarray, baselines: dict) -> dict:
    """``metrics.json``'s shape: ``metric(y_true, ...)`` of the model and of every baseline.

    Returns ``{"model": metric(y_true, y_pred), "baselines": {name: metric(y_true, b)}}``.
    """
    return {"model": metric(y_true, y_pred), "baselines": {name: metric(y_true, b) for name, b in baselines.items()}}


def _check_name(task: Task) -> None:
    if task.name not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task.name!r}.")


def _import_kinds() -> None:
    """Import every kind's ``seqlab.tasks.<name>.task``, which registers its ``Task`` as it loads."""
    for name in TASKS:
        importlib.import_module(f"seqlab.tasks.{name}.task")


TASK_KINDS: Registry[Task] = Registry("task", check=_check_name, load=_import_kinds)


def register_task(task: Task) -> Task:
    """Register ``task`` and its own metrics, so every table, card and skill reads their unit and direction."""
    for metric in task.test_metrics:
        if METRICS.setdefault(metric.key, metric) != metric:
            raise ValueError(f"Task {task.name!r} declares metric {metric.key!r} differently from the one registered.")
    return TASK_KINDS.register(task.name, task)


def get_task(name: str) -> Task:
    if name not in TASK_KINDS:
        raise ValueError(
            f"No models can be trained for task {name!r} yet; trainable tasks: {', '.join(TASK_KINDS)}."
        )
    return TASK_KINDS.get(name)


def list_tasks() -> list[Task]:
    return TASK_KINDS.list()


def task_can(task: str, use: str) -> bool:
    """Whether a run of ``task`` (a name, perhaps of a kind this seqlab does not know) can do ``use``: the filter
    of the pages that list only the runs able to generate, translate or fill in."""
    return task in TASK_KINDS and TASK_KINDS.get(task).can(use)


def task_for(use: str, task: str, run_id: str) -> Task:
    """The task of run ``run_id`` (a ``task`` run), which must be able to do ``use`` (a key of ``USES``).

    Raises:
        ValueError: naming the run's task, the tasks that can, and what the run can do instead.
    """
    found = get_task(task)
    if not found.can(use):
        able = " or ".join(t.name for t in list_tasks() if t.can(use))
        instead = [USES[u].lower() for u in USES if found.can(u)]
        raise ValueError(
            f"{USES[use]} needs a {able} run; run {run_id!r} is a {task} run. A {task} run offers "
            + (", ".join(instead) if instead else "its SavedModel's serve endpoint on its inputs (load_serving)")
            + "."
        )
    return found


def check_model_io(meta: RunMeta, inputs: tuple, outputs: tuple, what: str) -> None:
    """Refuse a model whose shapes (batch axis first) do not fit run ``meta`` and its task (``Task.outputs``; a
    model file swapped in from another run); ``what`` names the file."""
    want_in = (None, *meta.input_shape)
    want_out = (None, *TASK_KINDS.get(meta.task).outputs(meta)) if meta.task in TASK_KINDS else None
    fits = _fits(inputs, want_in) and (want_out is None or _fits(outputs, want_out))
    if not fits:
        raise ValueError(
            f"{what} takes inputs {_shape(inputs)} and gives {_shape(outputs)}, but this {meta.task} run "
            f"needs inputs {_shape(want_in)} and outputs {_shape(want_out or outputs)}: the model does not "
            "belong to this run. Delete the run or train it again."
        )


def _fits(shape: tuple, wanted: tuple) -> bool:
    """Same rank, and equal where both sides know the size (``None``: any)."""
    shape = tuple(shape)
    return len(shape) == len(wanted) and all(a is None or b is None or a == b for a, b in zip(shape, wanted))


def _shape(shape: tuple) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ")"


def get_metric(key: str) -> Metric:
    """The metric called ``key``, a task kind's own among them: the kinds are loaded first, since each registers
    its metrics (their direction and scale) as it loads; an unknown key reads as ``registered_metric`` says."""
    TASK_KINDS.names()
    return registered_metric(key)


def ordered_metrics(keys, task: str | None = None) -> list[str]:
    """``keys`` in the order ``task`` shows them (``metrics.json`` stores them sorted by name).

    The task's own metrics come first, the first being its headline; others
    (or every key, for an unknown task) follow in the order of ``METRICS``.
    """
    declared = [m.key for m in TASK_KINDS.get(task).test_metrics] if task in TASK_KINDS else []
    rank = {key: i for i, key in enumerate(declared + [k for k in METRICS if k not in declared])}
    return sorted(keys, key=lambda k: (rank.get(k, len(rank)), k))


def mape_left_out(metrics, task: str | None = None) -> bool:
    """Whether ``task`` reports MAPE but this run's ``metrics`` left it out (the truth comes near or crosses 0)."""
    declared = [m.key for m in TASK_KINDS.get(task).test_metrics] if task in TASK_KINDS else []
    return "mape" in declared and "mape" not in metrics


def shown_metrics(metrics, task: str | None = None) -> list[str]:
    """``ordered_metrics``, less the percentages of the truth (sMAPE) where MAPE was left out: as meaningless."""
    keys = ordered_metrics(metrics, task)
    if mape_left_out(metrics, task):
        keys = [k for k in keys if not (k in METRICS and METRICS[k].of_truth)]
    return keys
