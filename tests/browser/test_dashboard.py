"""The running dashboard in a real browser: train one epoch of energy/LSTM, look at every page.

Starts ``streamlit run streamlit_app.py`` on a free port (run store in a temporary
folder), drives Debian's chromium through Playwright, and, when ``$SEQLAB_SHOTS`` names a folder, saves
screenshots there for a person to look at (as the projector test does). CI installs chromium and
Playwright; without them this test fails and says what is missing.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("SEQLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
START_TIMEOUT = 90  # seconds for the server to answer its health check
PAGE_TIMEOUT = 90_000  # milliseconds for a page's text to appear
TRAIN_TIMEOUT = 240_000  # milliseconds for one epoch plus evaluation and export

pytestmark = pytest.mark.browser


def _requirements():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Python package 'playwright' is missing: pip install playwright==1.65.2", pytrace=False)
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: apt-get install chromium (or set SEQLAB_CHROMIUM)", pytrace=False
        )
    return sync_playwright


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, server: subprocess.Popen, log: Path, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"streamlit exited with {server.returncode}:\n{log.read_text()[-3000:]}", pytrace=False)
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    pytest.fail(f"streamlit did not answer within {timeout} s:\n{log.read_text()[-3000:]}", pytrace=False)


@contextmanager
def dashboard(runs_dir: Path, log: Path, launcher: tuple[str, ...] = ("streamlit",), env: dict | None = None,
              start_timeout: float = START_TIMEOUT):
    """``streamlit run streamlit_app.py`` (through ``python -m`` ``launcher``) on a free port, its run store
    ``runs_dir``; yields its URL; the server is killed afterwards, whatever happens."""
    port = _free_port()
    env = {**os.environ, **(env or {}), "SEQLAB_RUNS_DIR": str(runs_dir), "TF_CPP_MIN_LOG_LEVEL": "3"}
    command = [
        sys.executable, "-m", *launcher, "run", "streamlit_app.py",
        "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
        "--browser.gatherUsageStats", "false",
    ]
    with log.open("w") as out:
        # Popen runs the interpreter itself (no shell), so server.pid is streamlit's own PID.
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(url, process, log, start_timeout)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``(url, runs)``: the dashboard on a free port, its run store ``runs``, its lessons shrunk to seconds
    (``tests.browser.tiny_lessons``: the launcher imports TensorFlow before the server answers); one server for
    this file's tests, in order: the first sees an empty store."""
    root = tmp_path_factory.mktemp("dashboard")
    with dashboard(root / "runs", root / "streamlit.log", ("tests.browser.tiny_lessons",),
                   start_timeout=4 * START_TIMEOUT) as url:
        yield url, root / "runs"


def _shot(page, name: str) -> None:
    """The whole page into ``$SEQLAB_SHOTS``, when it is set (a full-page picture costs the suite seconds)."""
    folder = os.environ.get("SEQLAB_SHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(1500)  # let plotly finish drawing
    page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def _no_exception(page) -> None:
    errors = page.locator('[data-testid="stException"]')
    assert errors.count() == 0, errors.first.inner_text()


def test_train_energy_one_epoch_and_look_at_every_page(server):
    url, _ = server
    sync_playwright = _requirements()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1800})

            page.goto(url)
            page.get_by_text("Model families of the lecture").wait_for(timeout=PAGE_TIMEOUT)
            _no_exception(page)
            _shot(page, "home")

            page.goto(f"{url}/data")
            page.get_by_text("Summary statistics").wait_for(timeout=PAGE_TIMEOUT)
            page.locator(".js-plotly-plot").first.wait_for(timeout=PAGE_TIMEOUT)
            _no_exception(page)
            _shot(page, "data_energy")

            page.get_by_role("link", name="Train").first.click()
            page.get_by_text("Experiment spec").wait_for(timeout=PAGE_TIMEOUT)
            page.get_by_role("combobox", name="Architecture").click()
            page.get_by_role("option", name="LSTM", exact=True).click()
            page.wait_for_timeout(1000)
            for tab, label, value in (("Model", "Units", "16"), ("Training", "Epochs", "1")):
                page.get_by_role("tab", name=tab, exact=True).click()
                field = page.get_by_role("spinbutton", name=label, exact=True)
                field.fill(value)
                field.press("Enter")
                page.wait_for_timeout(800)
            assert "train.arch.lstm.units=16" in page.url  # the settings are in the link
            page.get_by_text("weights", exact=False).first.wait_for(timeout=PAGE_TIMEOUT)
            clicked = time.monotonic()
            page.get_by_role("button", name="Train", exact=True).click()
            page.get_by_text("Loss while training").wait_for(timeout=PAGE_TIMEOUT)
            page.get_by_text("waiting for the first batch").wait_for(state="detached", timeout=TRAIN_TIMEOUT)
            print(f"click Train -> first point of the live curve: {time.monotonic() - clicked:.1f} s")
            _shot(page, "train_running")
            page.get_by_text("Saved as run").wait_for(timeout=TRAIN_TIMEOUT)
            page.get_by_text("Test metrics against the baselines").wait_for(timeout=PAGE_TIMEOUT)
            assert page.get_by_text("Test MAE").count() >= 1
            _no_exception(page)
            _shot(page, "train_done")

            page.get_by_role("link", name="Models").first.click()
            page.get_by_text("LSTM on energy").wait_for(timeout=PAGE_TIMEOUT)
            page.get_by_role("tab", name="Load SavedModel and predict").click()
            page.get_by_role("button", name="Load SavedModel and predict").click()
            page.get_by_text("SavedModel forecast of Demand").wait_for(timeout=PAGE_TIMEOUT)
            _no_exception(page)
            _shot(page, "models_serving")

            page.goto(f"{url}/compare?projector=true")
            page.get_by_text("Train at least two runs to compare").wait_for(timeout=PAGE_TIMEOUT)
            _no_exception(page)
            page.goto(f"{url}/inspect?projector=true")
            page.locator(".js-plotly-plot").first.wait_for(timeout=PAGE_TIMEOUT)
            assert page.get_by_role("switch", name="Projector mode").is_checked()
            page.locator("[data-testid=stPopover] button").first.click()  # a figure's Download menu
            page.get_by_role("button", name="Data (CSV)").first.wait_for(timeout=PAGE_TIMEOUT)
            _no_exception(page)
            _shot(page, "inspect_projector")
        finally:
            browser.close()


def _train(runs_dir: Path, dataset: str, model: str, data_options: dict, model_options: dict) -> None:
    """A run trained in this process into the server's run store (the pages scan it when they open)."""
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    run_experiment(ExperimentSpec(dataset, model, data_options, model_options, epochs=1), store=RunStore(runs_dir))


def test_lesson_generate_and_translate(server):
    """A lesson opened from a link and run (its tiny runs), text generated from a language run, a sentence
    translated."""
    url, runs = server
    _train(runs, "pydoc", "markov", {"tokenizer": "char", "characters": 3000}, {"order": 2})
    _train(runs, "numbers_en_de", "seq2seq", {"last": 40}, {"units": 8, "attention": "bahdanau"})
    sync_playwright = _requirements()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 2400})

            page.goto(f"{url}/lessons?lessons.lesson=5.+GRU")  # a link to one lesson
            page.get_by_role("heading", name="GRU", exact=True).wait_for(timeout=PAGE_TIMEOUT)
            page.locator(".katex").first.wait_for(timeout=PAGE_TIMEOUT)
            assert page.locator(".katex").count() >= 3  # the GRU cell's equations, rendered
            page.get_by_role("button", name="Run this lesson").click()
            page.get_by_text("Inside the runs").wait_for(timeout=TRAIN_TIMEOUT)
            page.locator(".js-plotly-plot").nth(1).wait_for(timeout=PAGE_TIMEOUT)  # the gates, after the curves
            _no_exception(page)
            _shot(page, "lesson_gru")

            page.goto(f"{url}/generate")
            page.get_by_role("button", name="Generate", exact=True).wait_for(timeout=PAGE_TIMEOUT)
            page.get_by_role("button", name="Generate", exact=True).click()
            page.get_by_text("Sample 1").first.wait_for(timeout=PAGE_TIMEOUT)
            _no_exception(page)
            _shot(page, "generate")

            page.goto(f"{url}/translate")
            source = page.get_by_label("Source text", exact=False)
            source.wait_for(timeout=PAGE_TIMEOUT)
            source.fill("twenty-one")
            source.press("Enter")
            page.get_by_text("Greedy translation").wait_for(timeout=PAGE_TIMEOUT)
            page.locator(".js-plotly-plot").first.wait_for(timeout=PAGE_TIMEOUT)  # the attention map
            _no_exception(page)
            _shot(page, "translate")
        finally:
            browser.close()
