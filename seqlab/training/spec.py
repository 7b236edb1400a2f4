"""ExperimentSpec: the one place hyper-parameters are decided.

A plain, JSON-serialisable, frozen dataclass. The app and the CLI both build
one; a run folder stores it, so every run can be reproduced from ``spec.json``.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

from seqlab.bounded_json import check_depth
from seqlab.checks import RANGES, shown
from seqlab.data.registry import get_dataset, resolve_options
from seqlab.models.registry import get_architecture, resolve_model_options
from seqlab.tasks import get_task, list_tasks

OPTIMIZERS = ("adam", "adamw", "rmsprop", "sgd")  # Keras's own names (keras.optimizers.get)
OPTIONAL = ("clip_norm", "clip_value")  # None: off
SCHEDULES = ("constant", "cosine")  # the learning rate over training: fixed, or warm-up then cosine decay


@dataclass(frozen=True)
class ExperimentSpec:
    """What to train, on what, and how.

    Attributes:
        dataset: registry name of the dataset (``python -m seqlab datasets``).
        model: registry name of the architecture (``python -m seqlab models``).
        data_options: dataset options (lookback, horizon, ...); defaults filled by ``resolved``.
        model_options: architecture hyper-parameters (units, layers, ...).
        epochs, batch_size, optimizer, learning_rate: the training loop.
        clip_norm: clip the gradient to this global norm (``None``: off).
        clip_value: clip every gradient entry to [-clip_value, clip_value]
            (``None``: off). Keras optimizers clip one way: not with clip_norm.
        tbptt: ``[k1, k2]`` trains by truncated BPTT(k1, k2) on the training
            series (datasets of a series task, i.e. forecast; unidirectional
            recurrent models): an
            update every k1 steps, gradients through at most k2 steps (see
            ``seqlab.training.tbptt``). ``None``: windows and full BPTT.
        early_stopping: patience in epochs on the validation loss (0: off);
            the best weights are restored.
        seed: seeds Python, NumPy and the backend.
        weight_decay: decoupled weight decay of the weight matrices (AdamW's
            lambda; biases, norms and other vectors are not decayed); 0: off.
        schedule: ``constant`` learning rate, or ``cosine``: a linear warm-up
            from 0 over ``warmup_steps`` batches, then a cosine decay to a tenth
            of ``learning_rate`` at the last batch (nanoGPT's schedule).
        warmup_steps: batches of linear warm-up (``cosine`` only).
        steps: a budget of batches, as nanoGPT counts (0: whole passes over
            the training windows). With steps, the windows are drawn shuffled
            (without replacement within a pass) from a pipeline that never
            waits, and ``epochs`` is how many times the validation loss is
            measured along the way (every ``steps / epochs`` batches).
        jit_compile: compile each training step with XLA (one fused program)
            on a CPU too; false leaves it to Keras (XLA on a GPU where the
            layers allow). A small Transformer trains about 1.5 times faster
            on a CPU with it.
        steps_per_execution: batches per call of the compiled step, so
            Python runs once per that many batches (progress and cancel are
            seen at that grain).
        devices: data parallelism: every batch of ``batch_size`` windows is
            split evenly over this many devices (the GPUs, else the CPUs made
            visible as several; ``seqlab.training.devices``), each computes its
            share's gradient, and their sum updates one copy of the weights,
            so the losses are one device's on the same batches. Every batch is
            a whole one, drawn as with ``steps``. 0: all GPUs where there are
            several (TensorFlow), else one device.
    """

    dataset: str
    model: str
    data_options: dict = field(default_factory=dict)
    model_options: dict = field(default_factory=dict)
    epochs: int = 10
    batch_size: int = 64
    optimizer: str = "adam"
    learning_rate: float = 1e-3
    clip_norm: float | None = None
    clip_value: float | None = None
    tbptt: list[int] | None = None
    early_stopping: int = 0
    seed: int = 0
    weight_decay: float = 0.0
    schedule: str = "constant"
    warmup_steps: int = 0
    steps: int = 0
    jit_compile: bool = False
    steps_per_execution: int = 1
    devices: int = 0

    @property
    def task(self) -> str:
        return get_dataset(self.dataset).task

    def _check_structure(self) -> None:
        """Names are text and options are mappings: anything else, e.g. a list from JSON, is refused."""
        for name in ("dataset", "model", "optimizer", "schedule"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"{name} must be a name (text), got {shown(getattr(self, name))}.")
        for name in ("data_options", "model_options"):
            value = getattr(self, name)
            if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
                raise ValueError(f"{name} must be a mapping of option names to values, got {shown(value)}.")

    def _number(self, name: str, integer: bool):
        """Field ``name`` checked against its range in ``seqlab.checks.RANGES`` (``None`` stays ``None``
        for the optional clip fields)."""
        value = getattr(self, name)
        if value is None and name in OPTIONAL:
            return None
        if integer and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"{name} must be an integer, got {shown(value)}.")
        value = RANGES[name].check(name, value)
        return value if integer else float(value)  # Keras's optimizers refuse an integer rate

    def resolved(self) -> "ExperimentSpec":
        """Check every field and fill the dataset's and model's defaults."""
        self._check_structure()
        for name in ("epochs", "batch_size", "early_stopping", "seed", "warmup_steps", "steps", "steps_per_execution",
                     "devices"):
            self._number(name, integer=True)
        rates = {
            name: self._number(name, integer=False)
            for name in ("learning_rate", "clip_norm", "clip_value", "weight_decay")
        }
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(
                f"Unknown optimizer {self.optimizer!r}; valid optimizers: {', '.join(OPTIMIZERS)}."
            )
        if self.schedule not in SCHEDULES:
            raise ValueError(f"Unknown schedule {self.schedule!r}; valid schedules: {', '.join(SCHEDULES)}.")
        if not isinstance(self.jit_compile, bool):
            raise ValueError(f"jit_compile must be true or false, got {shown(self.jit_compile)}.")
        if self.steps and self.steps < self.epochs:
            raise ValueError(
                f"steps={self.steps} cannot be split into {self.epochs} epochs (validation rounds): give at least "
                "as many steps as epochs, or steps 0 to train whole passes."
            )
        if self.warmup_steps and self.schedule != "cosine":
            raise ValueError("warmup_steps needs schedule 'cosine' (a constant rate has no warm-up).")
        if self.clip_norm is not None and self.clip_value is not None:
            raise ValueError("Set clip_norm or clip_value, not both: Keras optimizers clip one way.")
        arch = get_architecture(self.model, self.task)  # unknown or unfit model: clear message
        if self.devices and (self.tbptt is not None or arch.fit is not None):
            how = "is fitted in closed form" if arch.fit is not None else "trains by truncated BPTT (tbptt)"
            raise ValueError(f"devices={self.devices} splits model.fit's batches; {self.model!r} {how}: "
                             "leave devices 0.")
        if self.devices and self.batch_size % self.devices:
            raise ValueError(f"batch_size {self.batch_size} does not split evenly over {self.devices} devices; "
                             f"give a multiple of {self.devices}.")
        return dataclasses.replace(
            self,
            data_options=resolve_options(self.dataset, self.data_options),
            model_options=resolve_model_options(self.model, self.model_options),
            tbptt=self._resolved_tbptt(arch),
            **rates,
        )

    def _resolved_tbptt(self, arch) -> list[int] | None:
        if self.tbptt is None:
            return None
        pair = self.tbptt
        if (
            not isinstance(pair, (list, tuple)) or len(pair) != 2
            or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in pair)
        ):
            raise ValueError(f"tbptt must be [k1, k2] with two integers >= 1, or None; got {shown(pair)}.")
        for name, k in zip(("k1", "k2"), pair):
            RANGES["tbptt"].check(f"tbptt {name}", k)
        if not get_task(self.task).series:
            kinds = " and ".join(t.name for t in list_tasks() if t.series)
            raise ValueError(
                f"tbptt trains on one long series: {kinds} datasets only; {self.dataset!r} is a {self.task} dataset."
            )
        if arch.fit is not None:
            raise ValueError(f"Model {self.model!r} is fitted in closed form; tbptt applies to gradient training.")
        return [int(pair[0]), int(pair[1])]

    def with_overrides(self, overrides: dict[str, object]) -> "ExperimentSpec":
        """Apply ``key=value`` pairs: a spec field, a data option or a model option.

        A plain key is looked up in that order (``seed`` is the training seed);
        ``data.KEY`` and ``model.KEY`` name a data or model option explicitly
        (``data.seed`` reseeds a generated dataset). String values (from
        ``--set key=value``) are parsed as JSON when they can be (``3``, ``0.5``,
        ``null``, ``true``), else kept as strings.
        """
        self._check_structure()
        if not isinstance(overrides, dict):
            raise ValueError(f"Overrides must be a mapping of setting names to values, got {shown(overrides)}.")
        fields = {f.name for f in dataclasses.fields(self)} - {"data_options", "model_options"}
        data_keys = set(get_dataset(self.dataset).defaults)
        model_keys = set(get_architecture(self.model).defaults)
        top, data, model = {}, dict(self.data_options), dict(self.model_options)
        given = {}  # (where it goes, its name) -> (the key that set it, the value): two keys must not disagree
        for key, value in overrides.items():
            if not isinstance(key, str):
                raise ValueError(f"A setting's name must be text, got {shown(key)}.")
            value = parse_value(value)
            group, _, name = key.rpartition(".")
            target = (group or ("" if key in fields else "data" if key in data_keys else "model"), name)
            first, before = given.setdefault(target, (key, value))
            if first != key and before != value:
                raise ValueError(f"{first}={shown(before)} and {key}={shown(value)} set the same option to different "
                                 "values; give it only once.")
            if group == "data" and name in data_keys:
                data[name] = value
            elif group == "model" and name in model_keys:
                model[name] = value
            elif not group and key in fields:
                top[key] = value
            elif not group and key in data_keys:
                data[key] = value
            elif not group and key in model_keys:
                model[key] = value
            else:
                valid = sorted(fields | data_keys | model_keys)
                raise ValueError(
                    f"Unknown setting {key!r}; valid settings: {', '.join(valid)} "
                    "(prefix data. or model. to name a data or model option)."
                )
        return dataclasses.replace(self, data_options=data, model_options=model, **top)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_dict(cls, values: dict) -> "ExperimentSpec":
        if not isinstance(values, dict) or not all(isinstance(key, str) for key in values):
            raise ValueError(f"A spec must be a JSON object of fields, got {shown(values)}.")
        known = {f.name for f in dataclasses.fields(cls)}
        missing = sorted({"dataset", "model"} - set(values))
        if missing:
            raise ValueError(f"The spec lacks {', '.join(missing)}; give the dataset and the model by name.")
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"Unknown spec field(s) {unknown}; valid fields: {', '.join(sorted(known))}.")
        return cls(**values)


def parse_value(value):
    if not isinstance(value, str):
        return value
    check_depth(value, f"The value {shown(value)}")  # before the parser, which recurses once per level
    try:
        return json.loads(value)
    except ValueError:  # not JSON, or an integer of thousands of digits
        return value


def check_spec(values) -> dict:
    """``spec.json``: the fields of ``ExperimentSpec`` (dataset and model named), the option groups mappings.

    The values themselves are checked by ``ExperimentSpec.resolved`` when the
    run is reproduced (limits may have changed since it was trained).
    """
    if not isinstance(values, dict):
        raise ValueError(f"spec.json must hold a JSON object, got {type(values).__name__}: the file is damaged.")
    known = {f.name for f in dataclasses.fields(ExperimentSpec)}
    unknown = sorted(str(k) for k in values if k not in known)
    if unknown:
        raise ValueError(f"spec.json has unknown field(s) {unknown}; valid fields: {', '.join(sorted(known))}.")
    for name, kind in (("dataset", str), ("model", str), ("data_options", dict), ("model_options", dict)):
        required = kind is str
        if (required and name not in values) or (name in values and not isinstance(values[name], kind)):
            what = "text" if kind is str else "a JSON object"
            raise ValueError(f"spec.json: {name} must be {what}, got {shown(values.get(name))}.")
    return values
