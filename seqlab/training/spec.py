"""ExperimentSpec: the one place hyper-parameters are decided.

A plain, JSON-serialisable, frozen dataclass. The app and the CLI both build
one; a run folder stores it, so every run can be reproduced from ``spec.json``.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

from seqlab.checks import check_int
from seqlab.data.registry import get_dataset, resolve_options
from seqlab.models.registry import get_architecture, resolve_model_options

OPTIMIZERS = ("adam", "adamw", "rmsprop", "sgd")  # Keras's own names (keras.optimizers.get)


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
            series (forecast datasets, unidirectional recurrent models): an
            update every k1 steps, gradients through at most k2 steps (see
            ``seqlab.training.tbptt``). ``None``: windows and full BPTT.
        early_stopping: patience in epochs on the validation loss (0: off);
            the best weights are restored.
        seed: seeds Python, NumPy and the backend.
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

    @property
    def task(self) -> str:
        return get_dataset(self.dataset).task

    def resolved(self) -> "ExperimentSpec":
        """Check every field and fill the dataset's and model's defaults."""
        check_int("epochs", self.epochs, minimum=1)
        check_int("batch_size", self.batch_size, minimum=1)
        check_int("early_stopping", self.early_stopping, minimum=0)
        check_int("seed", self.seed, minimum=0)
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(
                f"Unknown optimizer {self.optimizer!r}; valid optimizers: {', '.join(OPTIMIZERS)}."
            )
        if isinstance(self.learning_rate, bool) or not isinstance(self.learning_rate, (int, float)) \
                or not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be > 0, got {self.learning_rate!r}.")
        for name in ("clip_norm", "clip_value"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0):
                raise ValueError(f"{name} must be > 0 or None, got {value!r}.")
        if self.clip_norm is not None and self.clip_value is not None:
            raise ValueError("Set clip_norm or clip_value, not both: Keras optimizers clip one way.")
        arch = get_architecture(self.model, self.task)  # unknown or unfit model: clear message
        return dataclasses.replace(
            self,
            data_options=resolve_options(self.dataset, self.data_options),
            model_options=resolve_model_options(self.model, self.model_options),
            tbptt=self._resolved_tbptt(arch),
        )

    def _resolved_tbptt(self, arch) -> list[int] | None:
        if self.tbptt is None:
            return None
        pair = self.tbptt
        if (
            not isinstance(pair, (list, tuple)) or len(pair) != 2
            or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in pair)
        ):
            raise ValueError(f"tbptt must be [k1, k2] with two integers >= 1, or None; got {pair!r}.")
        if self.task != "forecast":
            raise ValueError(
                f"tbptt trains on one long series: forecast datasets only; {self.dataset!r} is a {self.task} dataset."
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
        fields = {f.name for f in dataclasses.fields(self)} - {"data_options", "model_options"}
        data_keys = set(get_dataset(self.dataset).defaults)
        model_keys = set(get_architecture(self.model).defaults)
        top, data, model = {}, dict(self.data_options), dict(self.model_options)
        for key, value in overrides.items():
            value = parse_value(value)
            group, _, name = key.rpartition(".")
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
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"Unknown spec field(s) {unknown}; valid fields: {', '.join(sorted(known))}.")
        return cls(**values)


def parse_value(value):
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


