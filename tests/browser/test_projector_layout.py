"""Projector mode at 1024×768: every page and every lesson's result fit the screen, nothing cut off.

A dashboard whose lessons are shrunk to seconds (``tests.browser.tiny_lessons``) serves their runs, trained once a
session (``tests.lesson_runs``); the same runs fill the other pages (a forecaster, classifiers, translators,
Transformers, language models). Each page opens at 1024×768 with ``?projector=true`` and ``cut_off_text.js`` lists
whatever a room would see cut off or cramped: text past the box that clips it (Streamlit's ellipsis, a title past its
figure, an equation scrolling sideways), a table wider than its box, a scrolling legend, overlapping tick labels, a
second column, a figure narrower than the page. Screenshots go to ``$SEQLAB_SHOTS`` when it is set, for a person
to look at.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlencode

import pytest

from seqlab.app.lessons.lesson import topic_label
from seqlab.lessons import LESSONS
from seqlab.training.identity import code_version
from tests.browser.test_dashboard import (
    CHROMIUM, CHROMIUM_ARGS, PAGE_TIMEOUT, ROOT, START_TIMEOUT, _requirements, dashboard,
)

pytestmark = pytest.mark.browser

CUT_OFF = (Path(__file__).parent / "cut_off_text.js").read_text()
SCREEN = {"width": 1024, "height": 768}
# Run in every page from its start: the last moment the script ran, or the page's title or projector style (its
# element's code loads on first use, seconds late on a busy server) was missing.
STILLNESS = """const PROJECTOR_RULE = 'stHorizontalBlock"] { flex-direction: column !important';  // seqlab's own rule
window.busySince = performance.now();
setInterval(() => {
  const state = document.querySelector(".stApp")?.getAttribute("data-test-script-state");
  const titled = document.querySelector('[data-testid="stMain"] h1');
  const styled = [...document.querySelectorAll("style")].some(s => s.textContent.includes(PROJECTOR_RULE));
  if (state !== "notRunning" || !titled || !styled) window.busySince = performance.now();
}, 100);"""
IDLE = "() => performance.now() - window.busySince > 2000"  # still for two seconds
AT_ONCE = 3  # tabs open together
PAGES = sorted(path.stem for path in (ROOT / "pages").glob("*.py"))
# The lessons whose views the issue saw break (the LSTM's cell-state legend, a translation and its character axis,
# four attention heads): their runs also fill the pages. The other lessons' views are checked as slow.
LESSONS_SEEN = ["lstm-gates", "encoder-decoder-attention", "self-attention-heads"]


@pytest.fixture(scope="module")
def projector_dashboard(tmp_path_factory, lesson_runs):
    """``(url, train)``: the dashboard with tiny lessons, serving the session's store of tiny lesson runs;
    ``train(names)`` makes sure those lessons' runs are in it (each trained once a session)."""

    def train(names: list[str]) -> None:
        for name in names:
            lesson_runs(name)

    code_version()  # the code's hash for the runs trained here, taken as the server takes its own
    # The launcher imports the lessons (TensorFlow) before the server answers: longer than streamlit alone.
    root = tmp_path_factory.mktemp("projector")
    with dashboard(lesson_runs.store.root, root / "streamlit.log", ("tests.browser.tiny_lessons",),
                   {"SEQLAB_CACHE": str(lesson_runs.cache)}, start_timeout=4 * START_TIMEOUT) as url:
        yield url, train


def _settled(page) -> None:
    """The page's script has run to its end, the reruns it asked for too, and plotly has drawn."""
    page.wait_for_function(IDLE, timeout=PAGE_TIMEOUT, polling=200)


def _shot(page, name: str) -> None:
    """The whole page, when ``$SEQLAB_SHOTS`` names a folder: the main block grows the window to its height."""
    folder = os.environ.get("SEQLAB_SHOTS")
    if not folder:
        return
    tall = page.evaluate('document.querySelector("[data-testid=stMain]").scrollHeight')
    page.set_viewport_size({"width": SCREEN["width"], "height": min(tall + 40, 12_000)})
    page.wait_for_timeout(1000)
    page.screenshot(path=str(Path(folder) / f"projector_{name}.png"))
    page.set_viewport_size(SCREEN)


def _problems(page, name: str) -> list[str]:
    errors = page.locator('[data-testid="stException"]')
    assert errors.count() == 0, f"{name}: {errors.first.inner_text()}"
    found = page.evaluate(CUT_OFF)
    if found:  # seen mid-rerun (a late rerun redraws the page's style too)? What the room sees is the still page
        _settled(page)
        found = page.evaluate(CUT_OFF)
    _shot(page, name)
    sidebar = page.locator('[data-testid="stSidebar"][data-collapsed="true"]').count() == 1
    return [f"{name}: {f['what']}: {f['text']!r} ({f['where']})" for f in found] + ([] if sidebar else [
        f"{name}: the sidebar is open"])


def _check(url: str, paths: dict[str, str]) -> list[str]:
    """Each of ``paths`` (name -> path and query) opened at 1024×768 in projector mode: what it shows cut off.
    ``AT_ONCE`` tabs load side by side, as a class's browsers do: their waits for stillness overlap."""
    sync_playwright = _requirements()
    problems = []
    names = list(paths)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            tabs = [browser.new_page(viewport=SCREEN) for _ in range(min(AT_ONCE, len(names)))]
            for page in tabs:
                page.add_init_script(STILLNESS)
            for first in range(0, len(names), len(tabs)):
                batch = list(zip(tabs, names[first:first + len(tabs)]))
                for page, name in batch:
                    path = paths[name]
                    page.goto(f"{url}/{path}{'&' if '?' in path else '?'}projector=true", wait_until="commit")
                for page, name in batch:
                    if name.startswith("lesson "):
                        page.get_by_text("Inside the runs").wait_for(timeout=PAGE_TIMEOUT)  # served: it shows
                    _settled(page)
                    problems += _problems(page, name)
        finally:
            browser.close()
    return problems


def _lessons(names: list[str]) -> dict[str, str]:
    return {f"lesson {name}": f"lessons?{urlencode({'lessons.lesson': topic_label(name)})}" for name in names}


def test_every_page_and_the_lessons_the_issue_saw_fit_a_projector(projector_dashboard):
    url, train = projector_dashboard
    train(LESSONS_SEEN)
    problems = _check(url, {name: "" if name == "home" else name for name in PAGES} | _lessons(LESSONS_SEEN))
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_every_other_lessons_result_fits_a_projector(projector_dashboard):
    url, train = projector_dashboard
    others = [name for name in LESSONS.names() if name not in LESSONS_SEEN]
    train(others)
    problems = _check(url, _lessons(others))
    assert not problems, "\n".join(problems)
