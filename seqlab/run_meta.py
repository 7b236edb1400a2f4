"""RunMeta: a run's ``meta.json``, read through one typed, validated object; shape checks of the JSON beside it.

``RunMeta.from_dict`` checks every field's type and names the bad one, so a
damaged or foreign ``meta.json`` makes the run *broken* (listed with the
reason) instead of failing later in a page. ``check_metrics`` and
``check_history`` do the same for ``metrics.json`` and ``history.json``
(``spec.json``: ``seqlab.training.spec.check_spec``; a model that does not fit
the run's task: ``seqlab.tasks.check_model_io``). It imports no task: the
tasks read a ``RunMeta``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field

from seqlab.checks import shown


@dataclass(frozen=True)
class RunMeta:
    """What ``run_experiment`` records about a run beside its spec (``meta.json``).

    Attributes:
        task: the task kind (``forecast``, ``regress``, ``classify``, ``label``).
        status: ``completed``, ``cancelled`` or another end state of training.
        dataset, model: registry names.
        input_shape: ``[T, F]``, one input sequence.
        features: input feature order (the SavedModel's last axis).
        target: the predicted column; ``units``: column -> unit.
        lookback, horizon: T and the outputs per sequence (see ``SequenceData``).
        classes: class names (classify and label runs), else ``None``.
        epochs_run, train_seconds, parameters, device, created (ISO time), versions.
        inputs: the task's model inputs, ``[{"name", "shape", "dtype"}]``
            (``seqlab.tasks.InputSpec``); ``None`` for runs saved before it was
            recorded, which took one float input of ``input_shape``.
        assets: files the task saved beside the model (``scaler.json``),
            relative to the run folder; empty for older runs.
        known: a forecast's columns known over the horizon, the model's
            second input ``future`` ``(H, K)``; empty when it has none.
        identity: what determined the run, one SHA-256 of its spec, data and code
            (``seqlab.training.identity``); ``None`` for runs saved before it was recorded.
        savedmodel_later: trained without its SavedModel (``run_experiment(savedmodel=False)``,
            ``train --no-savedmodel``), made when asked for (``python -m seqlab export RUN_ID``, the Results page).
    """

    task: str
    status: str
    dataset: str
    model: str
    input_shape: list[int]
    features: list[str]
    target: str
    units: dict[str, str]
    lookback: int | None
    horizon: int | None
    epochs_run: int
    train_seconds: float
    parameters: int
    device: str
    created: str
    versions: dict[str, str]
    classes: list[str] | None = None  # absent from the meta.json of runs without classes
    inputs: list[dict] | None = None
    assets: list[str] = field(default_factory=list)
    known: list[str] = field(default_factory=list)
    identity: str | None = None
    savedmodel_later: bool = False

    @classmethod
    def from_dict(cls, values) -> "RunMeta":
        """Check every field of a parsed ``meta.json``; a ``ValueError`` names the bad field."""
        check_fields("meta.json", values, cls)
        meta = cls(**values)
        numeric = meta.input_dtype == "float32"  # numeric windows: one value per feature at every step
        if numeric and (len(meta.input_shape) != 2 or len(meta.features) != meta.input_shape[1]):
            raise ValueError(
                f"meta.json: input_shape {meta.input_shape} must be [T, F] with F = {len(meta.features)} "
                "features; the file was changed after training: delete the run or train it again."
            )
        return meta

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @property
    def input_dtype(self) -> str:
        """The dtype of the model's (first) input: ``float32`` for every run before ``inputs`` was recorded."""
        return self.inputs[0].get("dtype", "float32") if self.inputs else "float32"


# ---------------------------------------------------------------- field checks


def check_fields(file: str, values, cls) -> None:
    """``values`` has every required field of dataclass ``cls``, no other, each of its annotated type."""
    if not isinstance(values, dict):
        raise ValueError(f"{file} must hold a JSON object, got {type(values).__name__}: the file is damaged.")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    hints = typing.get_type_hints(cls)
    unknown = sorted(str(k) for k in values if k not in fields)
    missing = [
        name for name, f in fields.items()
        if name not in values and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    if unknown or missing:
        problems = ([f"unknown field(s) {unknown}"] if unknown else []) + (
            [f"missing field(s) {missing}"] if missing else []
        )
        raise ValueError(f"{file} has {' and '.join(problems)}: it was not written by this seqlab. "
                         "Delete the run or train it again.")
    for name, value in values.items():
        if not _matches(value, hints[name]):
            raise ValueError(f"{file}: {name} must be {_describe(hints[name])}, got {shown(value)}.")


def _matches(value, hint) -> bool:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        return any(_matches(value, arg) for arg in args)
    if hint is type(None):
        return value is None
    if origin is list:
        return isinstance(value, list) and all(_matches(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            _matches(k, args[0]) and _matches(v, args[1]) for k, v in value.items()
        )
    if hint is float:  # JSON writes 2.0 as 2.0 but a hand-written file may say 2
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _describe(hint) -> str:
    """``int``, ``list[str]``, ``int | None``: the annotation as written."""
    return hint.__name__ if isinstance(hint, type) else str(hint).replace("NoneType", "None")


def _is_number(value) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _check_scores(where: str, scores) -> None:
    if not isinstance(scores, dict) or not all(isinstance(k, str) and _is_number(v) for k, v in scores.items()):
        raise ValueError(f"metrics.json: {where} must map metric names to numbers, got {shown(scores)}.")


def _check_per_step(where: str, scores) -> None:
    if not isinstance(scores, dict) or not all(
        isinstance(k, str) and isinstance(v, list) and all(_is_number(x) for x in v) for k, v in scores.items()
    ):
        raise ValueError(f"metrics.json: {where} must map metric names to lists of numbers, got {shown(scores)}.")


def _check_matrix(where: str, matrix) -> None:
    if not isinstance(matrix, list) or not all(
        isinstance(row, list) and len(row) == len(matrix) and all(_is_number(x) for x in row) for row in matrix
    ):
        raise ValueError(f"metrics.json: {where} must be a square list of lists of numbers, got {shown(matrix)}.")


# The parts of metrics.json beside the overall scores, each {"model": ..., "baselines": {name: ...}}:
# a forecast's scores per horizon step, a classifier's per class and its confusion matrix.
NESTED_METRICS = {"per_step": _check_per_step, "per_class": _check_per_step, "confusion": _check_matrix}


def _check_by_predictor(where: str, values, check) -> None:
    """``{"model": scores, "baselines": {name: scores}}``, each ``scores`` passing ``check``."""
    if not isinstance(values, dict) or set(values) != {"model", "baselines"}:
        raise ValueError(
            f"{where} must hold exactly the keys 'model' and 'baselines', got {shown(values)}: "
            "the file is damaged. Delete the run or train it again."
        )
    prefix = "" if where == "metrics.json" else where.removeprefix("metrics.json: ") + "."
    check(f"{prefix}model", values["model"])
    if not isinstance(values["baselines"], dict):
        raise ValueError(f"metrics.json: {prefix}baselines must be a JSON object, got {shown(values['baselines'])}.")
    for name, scores in values["baselines"].items():
        check(f"{prefix}baselines[{name!r}]", scores)


def check_metrics(values) -> dict:
    """``metrics.json``: ``{"model": {name: number}, "baselines": {baseline: {name: number}}}`` (null allowed).

    A forecast adds ``"per_step"``: the same shape with a list of numbers
    (one per horizon step) for each metric; a classifier or a tagger adds
    ``"per_class"`` (a list of numbers per class for each metric) and
    ``"confusion"`` (a confusion matrix for each predictor). Runs saved
    before them lack them.
    """
    overall = {k: v for k, v in values.items() if k not in NESTED_METRICS} if isinstance(values, dict) else values
    _check_by_predictor("metrics.json", overall, _check_scores)
    for key, check in NESTED_METRICS.items():
        if key in values:
            _check_by_predictor(f"metrics.json: {key}", values[key], check)
    return values


def check_history(values) -> dict:
    """``history.json``: ``{"batch": [{...}, ...], "epoch": [{...}, ...]}`` (either list may be absent)."""
    if not isinstance(values, dict):
        raise ValueError(f"history.json must hold a JSON object, got {type(values).__name__}.")
    for name in ("batch", "epoch"):
        rows = values.get(name, [])
        if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
            raise ValueError(f"history.json: {name} must be a list of JSON objects, got {shown(rows)}.")
    return values
