"""What the lessons' claims measure on finished runs: test scores, a cell's state and gates, generation speed.

Every function reads a saved run (``seqlab.runs.Run``) as the dashboard's
pages do, without Streamlit, so a claim measures the same figure on the
Lessons page, in ``bench/lesson_notices.py`` and in the tests.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from seqlab.data import SequenceData
    from seqlab.runs import Run


def run_of(runs: Sequence[Run], model: str, dataset: str | None = None, **options) -> Run:
    """The run of ``model`` (on ``dataset``) among ``runs`` whose data and model options include ``options``;
    ``ValueError`` naming it when none finished."""
    for run in runs:
        spec_options = {**run.spec.get("data_options", {}), **run.spec.get("model_options", {})}
        if (run.meta.model == model and dataset in (None, run.spec["dataset"])
                and all(spec_options.get(k) == v for k, v in options.items())):
            return run
    wanted = ", ".join([model, *([f"on {dataset}"] if dataset else []), *(f"{k}={v}" for k, v in options.items())])
    raise ValueError(f"the {wanted} run did not finish: run the lesson again")


def score(run: Run, metric: str, baseline: str | None = None) -> float:
    """The run's test ``metric`` (``metrics.json``), the model's or that ``baseline``'s."""
    scores = run.metrics["model"] if baseline is None else run.metrics["baselines"][baseline]
    return float(scores[metric])


def run_data(run: Run) -> SequenceData:
    """The dataset the run trained on, loaded with its options."""
    from seqlab.data import load_dataset

    return load_dataset(run.spec["dataset"], **run.spec.get("data_options", {}))


def cell_arrays(run: Run, x: np.ndarray, model=None) -> dict[str, np.ndarray]:
    """The first recurrent cell's internals over one sequence ``x`` ``(T, F)``: ``h``, the gates (and ``c`` for an
    LSTM), each ``(T, units)`` (``seqlab.inspect.trace``)."""
    from seqlab.inspect import trace

    cells = trace(model if model is not None else run.load_model(), x).cells
    if not cells:
        raise ValueError(f"run {run.run_id!r} has no recurrent cell to trace")
    return cells[0].arrays


def tokens_per_second(model, tokenizer, prompt: str, cached: bool, tokens: int, repeats: int = 3) -> float:
    """Greedy ``tokens`` after ``prompt``, once compiled: with the key/value cache (``cached``) or recomputing the
    whole context at every token; the fastest of ``repeats`` timings (the others waited on other work)."""
    from seqlab import decoding
    from seqlab.models.registry import steps_of
    from seqlab.tasks.language.generate import language_next, prompt_ids, recomputed_next

    next_fn = language_next(steps_of(model)) if cached else recomputed_next(model)
    ids = np.array([prompt_ids(tokenizer, prompt)])
    decoding.greedy(next_fn, ids, 2)  # compiles
    timings = []
    for _ in range(repeats):
        started = time.perf_counter()
        decoding.greedy(next_fn, ids, tokens)
        timings.append(time.perf_counter() - started)
    return tokens / min(timings)
