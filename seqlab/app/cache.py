"""Cached loaders: dataset windows and facts, traces (``cache_data``); Keras and served models (``cache_resource``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import streamlit as st

from seqlab.data import SequenceData, load_dataset
from seqlab.export import load_serving
from seqlab.tasks.language.generate import GeneratedText, generate_text
from seqlab.text import Tokenizer
from seqlab.tasks.translate.translation import run_tokenizers, translate, translate_sources
from seqlab.inspect import (
    GradientTrace, TokenAttribution, Trace, gradient_through_time, sentence_probabilities, token_attribution, trace,
)
from seqlab.models import build_model
from seqlab.runs import Run, RunStore
from seqlab.training.devices import device_name


@st.cache_resource(show_spinner=False)
def device() -> str:
    """Where training runs, e.g. ``CPU (2 cores)`` (asks TensorFlow once per server)."""
    return device_name()


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
        "data_options": dict(data.options),  # resolved: every default filled in
        "notes": list(data.notes),
    }


def dataset_facts(name: str, options: dict | None = None) -> dict:
    """Small facts about a windowed dataset (target, unit, window counts); raises ``ValueError``."""
    return _facts(name, _key(options))


@st.cache_data(show_spinner="Building the model to count its weights…", max_entries=32)
def _parameters(name: str, options_json: str, model: str, model_options_json: str) -> int:
    data = _dataset(name, options_json)
    return int(build_model(model, data, json.loads(model_options_json), runs=RunStore()).count_params())


def parameters(name: str, options: dict, model: str, model_options: dict) -> int:
    """How many weights ``model`` has on dataset ``name``; raises ``ValueError`` for options it refuses."""
    return _parameters(name, _key(options), model, _key(model_options))


@st.cache_data(show_spinner=False, max_entries=32)
def _predictions(path: str, created: str) -> dict:
    folder = Path(path)
    return RunStore(folder.parent).read(folder.name).predictions()


def predictions(run: Run) -> dict:
    """The run's test-split arrays (``y_true``, ``y_pred``, ``origin``, ``baseline_*``)."""
    return _predictions(str(run.path), run.meta.created)


@st.cache_resource(show_spinner="Loading the SavedModel…", max_entries=8)
def _serving(path: str, created: str, trust: bool):
    folder = Path(path)
    return load_serving(RunStore(folder.parent).read(folder.name), trust=trust)


def serving(run: Run, trust: bool = False):
    """The run's SavedModel as ``f(windows) -> predictions``, loaded once per run.

    Raises ``UntrustedModelError`` (not cached) when the run's manifest does not
    verify and ``trust`` is not set; see ``seqlab.export.load_serving``.
    """
    return _serving(str(run.path), run.meta.created, trust)


@st.cache_resource(show_spinner="Loading the model…", max_entries=4)
def _model(path: str, created: str):
    folder = Path(path)
    return RunStore(folder.parent).read(folder.name).load_model()


def model(run: Run):
    """The run's Keras model, loaded once per run (``Run.load_model``, checked); raises ``ValueError``."""
    return _model(str(run.path), run.meta.created)


@st.cache_data(show_spinner="Generating text…", max_entries=32)
def _greedy_text(path: str, created: str, prompt: str, tokens: int) -> str:
    folder = Path(path)
    run = RunStore(folder.parent).read(folder.name)
    return generate_text(run, prompt, tokens, temperature=0, model=_model(path, created)).text


def greedy_text(run: Run, prompt: str, tokens: int) -> str:
    """The language run's most probable continuation of ``prompt`` (``seqlab.tasks.language.generate``), cached."""
    return _greedy_text(str(run.path), run.meta.created, prompt, tokens)


@st.cache_data(show_spinner=False, max_entries=64)
def _sample_text(path: str, created: str, prompt: str, tokens: int, decoding_json: str) -> GeneratedText:
    folder = Path(path)
    run = RunStore(folder.parent).read(folder.name)
    return generate_text(run, prompt, tokens, model=_model(path, created), **json.loads(decoding_json))


def sample_text(run: Run, prompt: str, tokens: int, **decoding) -> GeneratedText:
    """``seqlab.tasks.language.generate.generate_text`` with the run's cached model; ``decoding``: temperature, top_k, top_p, seed."""
    return _sample_text(str(run.path), run.meta.created, prompt, tokens, _key(decoding))


@st.cache_resource(show_spinner=False, max_entries=16)
def _tokenizer(path: str, created: str, asset: str) -> Tokenizer:
    folder = Path(path)
    return RunStore(folder.parent).read(folder.name).load_tokenizer(asset)


def tokenizer(run: Run, asset: str = "tokenizer") -> Tokenizer:
    """The tokeniser saved with a text run (``tokenizer.json``, or ``Run.load_tokenizer``'s ``asset``), read once
    per run; raises ``ValueError``."""
    return _tokenizer(str(run.path), run.meta.created, asset)


def tokenizer_facts(run: Run, asset: str = "tokenizer") -> dict:
    """The run's tokeniser (``tokenizer``): its ``kind``, ``vocab_size`` and ``vocab`` (id -> token text)."""
    loaded = tokenizer(run, asset)
    return {"kind": loaded.kind, "vocab_size": loaded.vocab_size, "vocab": list(loaded.vocab)}


@st.cache_data(show_spinner="Tracing the cells step by step…", max_entries=32)
def _trace(path: str, created: str, window: np.ndarray, labels: tuple) -> Trace:
    return trace(_model(path, created), window, time_labels=list(labels))


def run_trace(run: Run, window: np.ndarray, labels: list) -> Trace:
    """``seqlab.inspect.trace`` of the run's model over one input window ``(T, F)``, one label per step."""
    return _trace(str(run.path), run.meta.created, window, tuple(labels))


@st.cache_data(show_spinner="Differentiating the loss through time…", max_entries=32)
def _gradients(path: str, created: str, window: np.ndarray, target: np.ndarray, loss: str) -> GradientTrace:
    return gradient_through_time(_model(path, created), window, target, loss=loss)


def run_gradients(run: Run, window: np.ndarray, target: np.ndarray, loss: str) -> GradientTrace:
    """``seqlab.inspect.gradient_through_time`` of the run's model for one window and its target."""
    return _gradients(str(run.path), run.meta.created, window, target, loss)


@st.cache_data(show_spinner=False, max_entries=64)
def _probabilities(path: str, created: str, ids: tuple) -> np.ndarray:
    return sentence_probabilities(_model(path, created), np.asarray(ids, dtype="int32"))


def probabilities(run: Run, ids) -> np.ndarray:
    """The text run's class probabilities for one sentence of token ids (``(C,)``, or ``(T, C)`` for tags)."""
    return _probabilities(str(run.path), run.meta.created, tuple(int(i) for i in ids))


@st.cache_data(show_spinner="Weighing every token of the sentence…", max_entries=64)
def _attribution(path: str, created: str, ids: tuple, target: int, method: str,
                 position: int | None) -> TokenAttribution:
    return token_attribution(_model(path, created), np.asarray(ids, dtype="int32"), target, method=method,
                             position=position)


def attribution(run: Run, ids, target: int, method: str, position: int | None = None) -> TokenAttribution:
    """``seqlab.inspect.token_attribution`` of the run's model for one sentence, cached; raises ``ValueError``."""
    return _attribution(str(run.path), run.meta.created, tuple(int(i) for i in ids), target, method, position)


@st.cache_data(show_spinner="Translating…", max_entries=64)
def _translations(path: str, created: str, text: str | None, row: int | None, width: int,
                  length_penalty: float) -> list:
    folder = Path(path)
    run = RunStore(folder.parent).read(folder.name)
    source, target = run_tokenizers(run)
    model = _model(path, created)
    if text is not None:
        [beams] = translate(model, source, target, [text], width, length_penalty, all_beams=True)
        [greedy] = translate(model, source, target, [text])
    else:  # a test source of numbers (an image's rows)
        x = _dataset(run.spec["dataset"], _key(run.spec.get("data_options"))).splits["test"].x[row : row + 1]
        read = [[f"row{k}" for k in range(1, x.shape[1] + 1)]]
        [beams] = translate_sources(model, target, x, read, width, length_penalty, all_beams=True)
        [greedy] = translate_sources(model, target, x, read)
    return [greedy, *beams]


def translations(run: Run, text: str | None, row: int | None, width: int, length_penalty: float) -> tuple:
    """``(greedy, beams)``: the run's greedy translation of ``text`` (or of test source ``row``, for a source of
    numbers) and the ``width`` hypotheses of its beam search, best first (``seqlab.tasks.translate.translation``); raises
    ``ValueError`` for an empty text."""
    greedy, *beams = _translations(str(run.path), run.meta.created, text, row, int(width), float(length_penalty))
    return greedy, beams


def _key(options: dict | None) -> str:
    return json.dumps(options or {}, sort_keys=True)
