"""Cached loaders: dataset frames and windows (``cache_data``), served models (``cache_resource``)."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from seqlab.data import SequenceData, get_dataset, load_dataset
from seqlab.export import load_serving
from seqlab.runs import Run
from seqlab.training.devices import device_name


@st.cache_resource(show_spinner=False)
def device() -> str:
    """Where training runs, e.g. ``CPU (2 cores)`` (asks TensorFlow once per server)."""
    return device_name()


@st.cache_data(show_spinner="Loading the dataset…", max_entries=8)
def dataset_frame(name: str) -> pd.DataFrame:
    """The raw table of a registered dataset, for previews."""
    return get_dataset(name).frame()


@st.cache_data(show_spinner="Cutting the series into windows…", max_entries=8)
def _dataset(name: str, options_json: str) -> SequenceData:
    return load_dataset(name, **json.loads(options_json))


def dataset(name: str, options: dict | None = None) -> SequenceData:
    """``load_dataset(name, **options)``, cached per name and options."""
    return _dataset(name, _key(options))


@st.cache_data(show_spinner=False, max_entries=64)
def _facts(name: str, options_json: str) -> dict:
    data = load_dataset(name, **json.loads(options_json))
    return {
        "task": data.task,
        "classes": len(data.classes),
        "target": data.target,
        "unit": data.units.get(data.target, ""),
        "units": dict(data.units),
        "features": list(data.features),
        "lookback": data.lookback,
        "horizon": data.horizon,
        "windows": {k: len(v) for k, v in data.splits.items()},
        "rows": len(data.frame),
        "index": data.frame.index[:2],
    }


def dataset_facts(name: str, options: dict | None = None) -> dict:
    """Small facts about a windowed dataset (target, unit, window counts); raises ``ValueError``."""
    return _facts(name, _key(options))


@st.cache_data(show_spinner=False, max_entries=32)
def _predictions(path: str, created: str) -> dict:
    from seqlab.runs import RunStore
    from pathlib import Path

    folder = Path(path)
    return RunStore(folder.parent).read(folder.name).predictions()


def predictions(run: Run) -> dict:
    """The run's test-split arrays (``y_true``, ``y_pred``, ``origin``, ``baseline_*``)."""
    return _predictions(str(run.path), run.meta.get("created", ""))


@st.cache_resource(show_spinner="Loading the SavedModel…", max_entries=8)
def _serving(path: str, created: str):
    return load_serving(path)


def serving(run: Run):
    """The run's SavedModel as ``f(windows) -> forecasts``, loaded once per run."""
    return _serving(str(run.savedmodel_path), run.meta.get("created", ""))


def _key(options: dict | None) -> str:
    return json.dumps(options or {}, sort_keys=True)
