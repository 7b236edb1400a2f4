"""The architecture registry, keyed by task kind.

An architecture is a named builder ``(data, **options) -> keras.Model`` with
default hyper-parameters. The app and the CLI offer only the architectures
whose task matches the dataset's, and validate options against the defaults
(and against ``choices`` where an option takes one of a few names).

Most architectures are trained by gradient descent (``run_experiment`` calls
``model.fit``); one that is fitted another way, such as the echo state
network's closed-form ridge readout, declares its own ``fit``.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from seqlab.checks import Range, bounds_table, resolve_against_defaults
from seqlab.data.registry import check_task
from seqlab.data.sequence_data import SequenceData
from seqlab.models.steps import Steps
from seqlab.registry import Registry

if TYPE_CHECKING:
    import keras  # the registry itself stays free of Keras: listing must not import TensorFlow


@dataclass(frozen=True)
class Architecture:
    """A named model builder.

    Attributes:
        family: the family of the lecture notes it belongs to; Home lists the families.
        teaches: what this architecture teaches of its family, one line of the notes (Home shows it, with
            the others of the family).
        build: ``(data, **options) -> keras.Model``.
        defaults: every option with its default value.
        choices: option -> its valid values, for options that name one of a few.
        ranges: bounds of this architecture's own numeric options; shared
            names (units, layers, dropout) take ``seqlab.checks.RANGES``.
        fit: ``(model, data, spec, callbacks) -> None`` when the model is not
            trained by gradient descent; it must drive ``callbacks`` like
            ``model.fit`` does (train/epoch/batch begin and end, with logs).
        needs: dataset kinds it reads (``DatasetInfo.kinds``, e.g. ``"image"``):
            it is offered only for datasets that have them all.
        run_options: options that name a finished run by its id (BERT's
            ``pretrained``); ``build_model`` reads that run from the store the new
            run is written to and ``build`` gets the ``Run`` (``None`` when empty).
        steps: ``(model) -> seqlab.models.steps.Steps``: the model one step at a time
            (generation, free run, TBPTT, decoding, serving); ``None``: it reads whole sequences only.
        labels: option -> ``(label, help)`` that the app shows for this architecture's option instead of the
            shared one (``seqlab.app.widgets.LABELS``), where it means something else by a shared name.
    """

    name: str
    title: str
    tasks: tuple[str, ...]
    family: str
    description: str
    teaches: str
    build: Callable[..., keras.Model]
    defaults: dict = field(default_factory=dict)
    choices: dict = field(default_factory=dict)
    ranges: dict[str, Range] = field(default_factory=dict)
    fit: Callable | None = None
    needs: frozenset[str] = frozenset()
    run_options: tuple[str, ...] = ()
    steps: Callable | None = None
    labels: dict[str, tuple[str, str | None]] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "title": self.title,
            "tasks": list(self.tasks),
            "family": self.family,
            "description": self.description,
            "options": dict(self.defaults),
            "choices": {k: list(v) for k, v in self.choices.items()},
            "ranges": bounds_table(self.defaults, self.ranges),
            "fit": "closed form" if self.fit else "gradient descent",
            "needs": sorted(self.needs),
        }


def _check_tasks(arch: Architecture) -> None:
    for task in arch.tasks:
        check_task(task)


ARCHITECTURES: Registry[Architecture] = Registry("model", check=_check_tasks)


def register_architecture(arch: Architecture) -> Architecture:
    return ARCHITECTURES.register(arch.name, arch)


def list_architectures(task: str | None = None, kinds: frozenset[str] | None = None) -> list[Architecture]:
    """The architectures for ``task`` (all when None) that need no more than a dataset's ``kinds`` (any when None)."""
    if task is not None:
        check_task(task)
    return ARCHITECTURES.list(
        lambda a: (task is None or task in a.tasks) and (kinds is None or a.needs <= kinds)
    )


def get_architecture(name: str, task: str | None = None) -> Architecture:
    arch = ARCHITECTURES.get(name)
    if task is not None and task not in arch.tasks:
        fitting = ", ".join(a.name for a in list_architectures(task))
        raise ValueError(
            f"Model {name!r} does not fit a {task!r} task; models for {task!r}: {fitting}."
        )
    return arch


def resolve_model_options(name: str, options: dict | None) -> dict:
    arch = get_architecture(name)
    return resolve_against_defaults(f"model {name!r}", arch.defaults, options, arch.ranges, arch.choices)


def build_model(name: str, data: SequenceData, options: dict | None = None, runs=None) -> keras.Model:
    """Model ``name`` for ``data``; ``runs`` (a ``seqlab.runs.RunStore``) holds the runs its ``run_options`` name."""
    arch = get_architecture(name, data.task)
    resolved = resolve_model_options(name, options)
    for option in arch.run_options:
        run_id = str(resolved[option]).strip()
        if run_id and runs is None:
            raise ValueError(f"Option {option!r} of model {name!r} names run {run_id!r}, but no run store was given.")
        resolved[option] = runs.read(run_id) if run_id else None
    from seqlab.weight_budget import weight_budget  # imports Keras: only when a model is built

    with weight_budget():  # max_parameters: refused before the first weight past it is made, not after the build
        return built_as(arch.build(data, **resolved), name)  # its steps are its architecture's


# The architecture each model was built or loaded as, and its Steps, made once (their compiled functions
# compile on the first call, about a second). Weak: forgetting a model frees both.
_BUILT_AS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_MADE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def built_as(model: keras.Model, architecture: str) -> keras.Model:
    """Record that ``model`` is of ``architecture`` (``build_model`` and ``Run.load_model`` do); ``model``."""
    _BUILT_AS[model] = architecture
    return model


def steps_of(model: keras.Model) -> Steps:
    """The ``Steps`` that the model's architecture declares for it, made once per model.

    ``ValueError`` for a model of no known architecture (built by hand, uploaded), of an architecture that
    cannot be stepped, or that its steps refuse (e.g. a bidirectional one).
    """
    if model not in _MADE:
        if model not in _BUILT_AS:
            raise ValueError(
                f"Model {model.name!r} was not built by a seqlab architecture (nor loaded from a run): nothing "
                "says how to run it one step at a time."
            )
        arch = get_architecture(_BUILT_AS[model])
        if arch.steps is None:
            raise ValueError(
                f"A {arch.title} model ({arch.name!r}) cannot be run one step at a time: it reads a whole "
                "sequence at once."
            )
        _MADE[model] = arch.steps(model)  # a Steps never holds the model itself, so the model can still be freed
    return _MADE[model]


def steps_or_none(model: keras.Model) -> Steps | None:
    """``steps_of``, or ``None`` where that refuses the model (what to offer, not an error)."""
    try:
        return steps_of(model)
    except ValueError:
        return None
