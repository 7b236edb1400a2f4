"""Shared widgets: dataset and architecture pickers, typed option inputs, training settings.

Every hyper-parameter widget is generated from a default that the library owns
(a dataset's ``defaults``, an architecture's ``defaults``, ``ExperimentSpec``'s
field defaults), so the app never invents its own names; its bounds are the
library's ranges (``seqlab.checks``) with the server's limits (``seqlab.limits``).
"""

from __future__ import annotations

import dataclasses
import math

import streamlit as st

from seqlab.checks import RANGES, Range, option_range
from seqlab.data import DatasetInfo, list_datasets
from seqlab.models import Architecture, get_architecture, list_architectures
from seqlab.training.spec import OPTIMIZERS, SCHEDULES, ExperimentSpec

# Every setting outlives a page switch and lives in the URL (its key is the query parameter's name;
# a default leaves the URL clean): a link opens the same dataset, model and settings.
KEPT = {"persist_state": "session", "bind": "query-params"}

# name -> (label, help). Names not listed get a label made from the name.
LABELS: dict[str, tuple[str, str | None]] = {
    "lookback": ("Lookback T", "How many past steps the model sees in one window."),
    "lag": ("Lag T (steps)", "Steps of the window the model reads, counted back from its last; 0 = the whole lookback."),
    "horizon": ("Horizon H", "How many future steps it forecasts at once."),
    "stride": ("Stride", "Steps between the starts of consecutive training windows (1 = every step)."),
    "val_fraction": ("Validation fraction", "Share of the series (after train) used for validation."),
    "test_fraction": ("Test fraction", "Share of the series at the end held out for the test metrics."),
    "length": ("Series length (steps)", None),
    "period": ("Period (steps)", None),
    "noise": ("Noise σ", "Standard deviation of the Gaussian noise."),
    "known_future": (
        "Known future",
        "Give the model the inputs known over the forecast horizon (a weather forecast, the working days) "
        "as a second input, beside the past window.",
    ),
    "seed": ("Seed", "Seeds Python, NumPy and the backend: the same seed gives the same run."),
    "units": ("Units", "Hidden units per layer (the state size d)."),
    "layers": ("Layers", "Number of stacked layers."),
    "dropout": ("Dropout", "Fraction of the layer inputs dropped at random during training."),
    "epochs": ("Epochs", "Passes over the training windows."),
    "batch_size": ("Batch size", "Windows per gradient step."),
    "optimizer": ("Optimizer", None),
    "learning_rate": ("Learning rate", None),
    "clip_norm": ("Clip gradient norm", "Clip the global gradient norm to this value; 0 = off."),
    "clip_value": ("Clip gradient values", "Clip every gradient entry to ±this value; 0 = off. Not with a norm clip."),
    "length_T": ("Sequence length T", "Steps per sequence."),
    "samples": ("Sequences", "How many sequences to generate (train, validation and test together)."),
    "delay": ("Delay (steps)", "Steps between reading the symbols and writing them out."),
    "symbols": ("Symbols", "Size of the alphabet to copy."),
    "tau": ("Delay τ (steps)", "The Mackey-Glass delay: chaotic from about 17."),
    "bidirectional": ("Bidirectional", "Run a second layer backwards and merge both states."),
    "merge_mode": ("Merge mode", "How forward and backward states combine."),
    "activation": ("Activation", None),
    "identity_init": ("Identity initialisation", "Recurrent weights start as the identity (IRNN, for ReLU)."),
    "variant": ("Variant", "Which parts of the LSTM cell are kept, as the notes build it up."),
    "filters": ("Filters per width", "Kernels of each width: the features every width adds."),
    "min_width": ("Narrowest kernel (tokens)", "Steps the narrowest kernel reads; widths min..max run side by side."),
    "max_width": ("Widest kernel (tokens)", "Steps the widest kernel reads (Kim 2014: widths 3, 4, 5)."),
    "reset_after": ("Reset after", "Apply the reset gate after the matrix product (Keras/cuDNN form)."),
    "spectral_radius": ("Spectral radius", "Largest eigenvalue modulus of the reservoir matrix."),
    "leak_rate": ("Leak rate", "Share of the new state mixed in at every step."),
    "input_scaling": ("Input scaling", None),
    "connectivity": ("Connectivity", "Share of non-zero reservoir weights."),
    "ridge": ("Ridge λ", "Regularisation of the closed-form readout."),
    "tokenizer": ("Tokeniser", "How the text is cut into tokens: characters, words, or byte-pair merges."),
    "vocab_size": ("Vocabulary size", "Most tokens a word or BPE tokeniser keeps (characters keep what they see)."),
    "lowercase": ("Lowercase", "Lowercase the text before tokenising."),
    "strip_punctuation": ("Strip punctuation", "Delete punctuation before tokenising."),
    "collapse_whitespace": ("Collapse whitespace", "Runs of spaces become one, at most one blank line stays."),
    "embedding_dim": ("Embedding size d", "Length of each token's learned vector (the embedding matrix is V × d)."),
    "characters": ("Characters used", "Use only the first N characters of the text; 0 = all of it."),
    "season": (
        "Season (steps)",
        "The period of the seasonal-naive baseline and of MASE; 0 = from the time step: a day of steps for "
        "sub-daily data (and a week), 7 for daily, 12 for monthly, else none.",
    ),
    "unit": ("Target unit", "The target's unit (GW, °C, …), for axes and metrics; empty = none."),
    "weight_decay": ("Weight decay λ", "Decoupled weight decay of the weight matrices (AdamW); biases and norms "
                     "are not decayed. 0 = off."),
    "schedule": ("Learning-rate schedule", "constant, or cosine: a linear warm-up, then a cosine decay to a tenth "
                 "of the rate at the last batch (nanoGPT's)."),
    "warmup_steps": ("Warm-up (batches)", "Batches of linear warm-up from 0 (cosine schedule only)."),
    "steps": ("Step budget (batches)", "Train this many batches, drawn shuffled, and measure the validation loss "
              "`epochs` times along the way; 0 = whole passes over the data."),
    "jit_compile": ("XLA", "One fused program per training step: faster for Transformers on a CPU."),
    "steps_per_execution": ("Batches per call", "Batches run per call of the compiled step: less Python per batch; "
                            "the live curve and Cancel act at that grain."),
    "early_stopping": (
        "Early-stopping patience (epochs)",
        "Stop when the validation loss has not improved for this many epochs and keep the best "
        "weights; 0 = off.",
    ),
}
# An option that only means something while a switch of the same owner is on: hidden while it is off.
SHOWN_WHEN: dict[str, str] = {"merge_mode": "bidirectional"}
DEFAULT_DATASET = "energy"
DEFAULT_ARCHITECTURE = "lstm"
SECONDARY_DATA_OPTIONS = ("val_fraction", "test_fraction", "seed")
SPEC_DEFAULTS = {
    f.name: f.default for f in dataclasses.fields(ExperimentSpec) if f.default is not dataclasses.MISSING
}


def label(name: str, own: dict | None = None) -> tuple[str, str | None]:
    """``(label, help)`` of option ``name``: its owner's ``own`` (``Architecture.labels``), else the shared one."""
    return (own or {}).get(name) or LABELS.get(name, (name.replace("_", " ").capitalize(), None))


def dataset_picker(key: str, task: str | None = None, label_text: str = "Dataset") -> DatasetInfo:
    datasets = {d.name: d for d in list_datasets(task)}
    if not datasets:
        st.error("No dataset is registered.")
        st.stop()
    names = list(datasets)
    # The lecture's running example opens the lesson when it is there.
    names.sort(key=lambda n: n != DEFAULT_DATASET)
    name = st.selectbox(
        label_text,
        names,
        format_func=lambda n: dataset_label(datasets[n]),
        key=key,
        **KEPT,
    )
    return datasets[name]


def architecture_picker(task: str, key: str, kinds: frozenset[str] = frozenset()) -> Architecture:
    """Only the architectures whose task matches the dataset's and that need no more than its ``kinds``."""
    archs = {a.name: a for a in list_architectures(task, kinds)}
    if not archs:
        st.error(f"No architecture is registered for {task!r} tasks yet.")
        st.stop()
    names = list(archs)  # lecture order; the LSTM, the workhorse, is preselected
    name = st.selectbox(
        "Architecture",
        names,
        index=names.index(DEFAULT_ARCHITECTURE) if DEFAULT_ARCHITECTURE in names else 0,
        format_func=lambda n: _arch_label(archs[n]),
        key=key,
        help=f"The architectures that fit a {task} task.",
        **KEPT,
    )
    return archs[name]


def dataset_label(info: DatasetInfo) -> str:
    return f"{info.name}: {info.title}"


def _arch_label(arch: Architecture) -> str:
    same = arch.title.casefold() == arch.family.casefold()
    return arch.title if same else f"{arch.title} (family: {arch.family})"


def main_data_options(defaults: dict) -> list[str]:
    """The data options worth showing up front (lookback, horizon, stride; T; ...)."""
    return [k for k in defaults if k not in SECONDARY_DATA_OPTIONS][:3]


def bounds(found: Range) -> tuple[int | float, int | float]:
    """The range's bounds in force; a misconfigured server is an error on the page, not a traceback."""
    try:
        return found.bounds()
    except ValueError as err:
        st.error(f"The server's limits cannot be read: {err}")
        st.stop()


def option_input(name: str, default, key: str, choices=None, ranges: dict[str, Range] | None = None,
                 labels: dict | None = None):
    """A widget typed after ``default``: select box (``choices``), toggle, integer, float or text.

    A number's bounds are the option's range (its owner's ``ranges``, else the shared one); its label and help
    its owner's ``labels``, else the shared ones.
    """
    text, help_text = label(name, labels)
    common = dict(key=key, help=help_text, **KEPT)
    if choices:
        options = list(choices)
        return st.selectbox(text, options, index=options.index(default) if default in options else 0, **common)
    if isinstance(default, bool):
        return st.toggle(text, value=default, **common)
    if isinstance(default, (int, float)):
        low, high = bounds(option_range(name, ranges))
        default = min(max(default, low), high)  # a server's limit may lie below the library's default
        if isinstance(default, int):
            return int(st.number_input(text, min_value=low, max_value=high, value=default, step=1, **common))
        step = 10.0 ** math.floor(math.log10(abs(default))) / 10 if default else 0.01
        return float(st.number_input(
            text, min_value=low, max_value=high, value=default, step=step, format="%g", **common
        ))
    return st.text_input(text, value=str(default), **common)


def option_grid(
    defaults: dict, key_prefix: str, names=None, columns: int = 2, choices=None,
    ranges: dict[str, Range] | None = None, labels: dict | None = None,
) -> dict:
    """Widgets for ``defaults`` (or the ``names`` among them) in a grid of ``columns``; ``ranges``, ``labels``:
    the owner's."""
    names = [n for n in (names if names is not None else defaults) if n in defaults]
    choices = choices or {}
    # A hidden option keeps its default. The switch's value from the last interaction is in the session
    # state before the switch itself is drawn (switches go last).
    values = {n: defaults[n] for n in names if not _shown(n, defaults, key_prefix)}
    # Switches go last, on their own row: their labels sit beside them and need the width.
    fields = [n for n in names if not isinstance(defaults[n], bool) and n not in values]
    switches = [n for n in names if isinstance(defaults[n], bool)]
    for group, width in ((fields, columns), (switches, min(columns, 2))):
        if not group:
            continue
        cols = st.columns(width)
        for i, name in enumerate(group):
            with cols[i % width]:
                values[name] = option_input(
                    name, defaults[name], key=f"{key_prefix}.{name}", choices=choices.get(name), ranges=ranges,
                    labels=labels,
                )
    return {n: values[n] for n in names}


def _shown(name: str, defaults: dict, key_prefix: str) -> bool:
    switch = SHOWN_WHEN.get(name)
    if switch is None or switch not in defaults:
        return True
    return bool(st.session_state.get(f"{key_prefix}.{switch}", defaults[switch]))


def _off_or_positive(name: str, key: str, default) -> float | None:
    """0 means off (``None``); the library's range bounds the rest, so a value below its low is refused there."""
    text, help_text = label(name)
    value = st.number_input(
        text, min_value=0.0, max_value=bounds(RANGES[name])[1], value=float(default or 0.0), step=0.5,
        help=help_text, key=key, **KEPT,
    )
    return float(value) if value > 0 else None


def tbptt_inputs(key_prefix: str, lookback: int) -> list[int] | None:
    """Truncated BPTT(k1, k2): off, or the two step counts."""
    on = st.toggle(
        "Truncated BPTT (k1, k2)", key=f"{key_prefix}.tbptt", **KEPT,
        help="Train on the training series as one stream: an update every k1 steps, gradients back "
             "k2 steps (recurrent, unidirectional models).",
    )
    if not on:
        return None
    low, high = bounds(RANGES["tbptt"])
    c1, c2 = st.columns(2)
    k1 = c1.number_input("k1 (steps per update)", min_value=low, max_value=high, value=min(max(lookback // 4, 1), high),
                         step=1, key=f"{key_prefix}.tbptt_k1", **KEPT)
    k2 = c2.number_input("k2 (steps back)", min_value=low, max_value=high, value=min(max(lookback // 2, 1), high),
                         step=1, key=f"{key_prefix}.tbptt_k2", **KEPT)
    return [int(k1), int(k2)]


def training_inputs(key_prefix: str) -> dict:
    """Epochs, batch size, optimizer, learning rate, clipping, early stopping, seed; weight decay, schedule, steps, XLA."""
    d = SPEC_DEFAULTS
    values: dict = {}
    c1, c2 = st.columns(2)
    with c1:
        values["epochs"] = option_input("epochs", d["epochs"], f"{key_prefix}.epochs")
        values["optimizer"] = st.selectbox(
            label("optimizer")[0], OPTIMIZERS, index=OPTIMIZERS.index(d["optimizer"]),
            key=f"{key_prefix}.optimizer", **KEPT,
        )
        values["clip_norm"] = _off_or_positive("clip_norm", f"{key_prefix}.clip_norm", d.get("clip_norm"))
        values["seed"] = option_input("seed", d["seed"], f"{key_prefix}.seed")
    with c2:
        values["batch_size"] = option_input("batch_size", d["batch_size"], f"{key_prefix}.batch_size")
        low, high = bounds(RANGES["learning_rate"])
        values["learning_rate"] = float(
            st.number_input(
                label("learning_rate")[0], min_value=low, max_value=high, value=float(d["learning_rate"]),
                step=1e-4, format="%g", key=f"{key_prefix}.learning_rate", **KEPT,
            )
        )
        if "clip_value" in d:
            values["clip_value"] = _off_or_positive("clip_value", f"{key_prefix}.clip_value", d.get("clip_value"))
        values["early_stopping"] = option_input(
            "early_stopping", d["early_stopping"], f"{key_prefix}.early_stopping"
        )
    with st.expander("Advanced: weight decay, schedule, step budget, XLA"):
        a1, a2 = st.columns(2)
        with a1:
            values["weight_decay"] = option_input("weight_decay", d["weight_decay"], f"{key_prefix}.weight_decay")
            values["schedule"] = option_input("schedule", d["schedule"], f"{key_prefix}.schedule", choices=SCHEDULES)
            values["warmup_steps"] = option_input("warmup_steps", d["warmup_steps"], f"{key_prefix}.warmup_steps")
        with a2:
            values["steps"] = option_input("steps", d["steps"], f"{key_prefix}.steps")
            values["steps_per_execution"] = option_input(
                "steps_per_execution", d["steps_per_execution"], f"{key_prefix}.steps_per_execution"
            )
            values["jit_compile"] = option_input("jit_compile", d["jit_compile"], f"{key_prefix}.jit_compile")
    return values


def _url_value(value) -> str:
    """A widget value as Streamlit writes it into the URL: ``true``, ``5`` (not ``5.0``), ``0.001``."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return str(int(value))
    return str(value)


def train_link(spec: ExperimentSpec) -> dict[str, str]:
    """The Train page's query parameters for ``spec``: opened with them, its form holds that run's settings.

    The keys are the widgets' keys (they are bound to the URL), a select box's value is its option as shown.
    """
    info = next(d for d in list_datasets() if d.name == spec.dataset)
    arch = get_architecture(spec.model)
    params = {"train.dataset": dataset_label(info), f"train.model.{info.task}": _arch_label(arch)}
    params.update({f"train.data.{info.name}.{k}": _url_value(v) for k, v in spec.data_options.items()})
    params.update({f"train.arch.{arch.name}.{k}": _url_value(v) for k, v in spec.model_options.items()})
    for name in ("epochs", "batch_size", "optimizer", "learning_rate", "seed", "early_stopping", "weight_decay",
                 "schedule", "warmup_steps", "steps", "steps_per_execution", "jit_compile", "clip_norm", "clip_value"):
        value = getattr(spec, name)
        params[f"train.fit.{name}"] = _url_value(0 if value is None else value)  # clipping: 0 is off
    if spec.tbptt:
        params.update({"train.fit.tbptt": "true", "train.fit.tbptt_k1": str(spec.tbptt[0]),
                       "train.fit.tbptt_k2": str(spec.tbptt[1])})
    return params
