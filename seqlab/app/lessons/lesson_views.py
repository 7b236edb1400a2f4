"""The inspection view of each lesson: drawn on the lesson's finished runs, under their comparison.

A view is registered by name with ``@lesson_view("name")`` beside its code;
a ``Lesson`` names its view (``Lesson.view``). The signature:

    (runs, key) -> None

``runs`` are the lesson's finished runs in the preset's order (a run that
failed or was deleted is left out; the view says what it needs when one is
missing); ``key`` prefixes every widget key. A view reuses the dashboard's
own inspection code (traces, attention maps, embeddings ...) rather than
drawing its own copy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import streamlit as st

from seqlab.app import cache, results
from seqlab.app.inspect.inspect_view import InspectInput, read_input
from seqlab.data import SequenceData
from seqlab.inspect import Trace
from seqlab.lessons import LESSONS, Lesson
from seqlab.registry import Registry
from seqlab.runs import Run, RunStore

LESSON_VIEWS: Registry[Callable] = Registry("lesson view")


def lesson_view(name: str) -> Callable[[Callable], Callable]:
    """Decorator: register the function as the lesson view called ``name``."""

    def register(view: Callable) -> Callable:
        return LESSON_VIEWS.register(name, view)

    return register


@st.cache_data(show_spinner="Measuring what the runs show…", max_entries=32)
def _measured_notice(lesson: str, runs: tuple[tuple[str, str], ...]) -> str:
    read = [RunStore(Path(path).parent).read(Path(path).name) for path, _ in runs]
    return LESSONS.get(lesson).notice_from(read)


def measured_notice(lesson: Lesson, runs: list[Run]) -> str:
    """What to notice that the lesson's claims measure on its finished ``runs`` (once per set of runs)."""
    return _measured_notice(lesson.name, tuple((str(run.path), run.meta.created) for run in runs))


def run_dataset(run):
    """The run's dataset (cached), or ``None`` after a warning that names the problem."""
    try:
        return cache.dataset(run.spec["dataset"], run.spec.get("data_options", {}))
    except (KeyError, ValueError, RuntimeError, OSError) as err:
        st.warning(f"The dataset of run `{run.run_id}` cannot be loaded ({err}): run the lesson again.",
                   icon=":material/warning:")
        return None



def traced_test_item(runs: list[Run], key: str, missing: str) -> tuple[Run, SequenceData, InspectInput, Trace] | None:
    """The first of ``runs`` on a test item (a slider), read as Inspect reads it, and its trace; ``None`` after
    saying why not (``missing``: there is no such run)."""
    if not runs:
        st.info(missing)
        return None
    run = runs[0]
    data = run_dataset(run)
    if data is None:
        return None
    count = len(data.splits["test"])
    if count == 0:
        st.info("The test split of this run is empty: there is no sequence to trace.")
        return None
    i = results.pick_test_item(run, data, count, key=f"{key}.sample")
    inp = read_input(run, data, i, key=f"{key}.input.{i}")
    if inp is None:  # the reader said why
        return None
    try:
        return run, data, inp, cache.run_trace(run, inp.x, inp.time)
    except (ValueError, OSError, TypeError, KeyError) as err:
        st.error(f"Cannot trace run `{run.run_id}`: {err}. Run the lesson again.")
        return None
