"""Classroom: a class opens the teacher's link of a lesson trained once; how soon each browser shows the results.

    python -m bench.classroom [--lesson gru-gates] [--sessions 25]

Trains the lesson once into a temporary run store (``python -m seqlab train
--preset``), starts ``streamlit run streamlit_app.py --server.headless true`` on
a free port over that store, then opens the teacher's link (the lesson, locked)
once (the server's cold start: it imports TensorFlow and the app), then in
``--sessions`` fresh browser contexts at once, Debian's chromium
(``/usr/bin/chromium``) driven by Playwright: each context is a new session, as
a student's browser is. Per session it prints the seconds from opening the link
until the lesson's served results show (their "Trained ..." line) and until the
view inside them starts, and at the end how many showed the results within 3 s
and whether the store still holds the lesson's runs only (nothing trained again).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from playwright.async_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
TARGET_SECONDS = 3.0
TIMEOUT_MS = 180_000


def train_once(lesson: str, runs: Path) -> list[str]:
    """The lesson's runs, trained by the command line into ``runs``: their ids."""
    done = subprocess.run([sys.executable, "-m", "seqlab", "train", "--preset", lesson, "--runs-dir", str(runs),
                           "--json"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [run["run_id"] for run in json.loads(done.stdout.strip().splitlines()[-1])["runs"]]


def start_server(runs: Path, log: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "SEQLAB_RUNS_DIR": str(runs), "TF_CPP_MIN_LOG_LEVEL": "3"}
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "streamlit_app.py", "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.status == 200:
                    return server, url
        except OSError:
            time.sleep(0.5)
    server.terminate()
    raise RuntimeError(f"streamlit did not answer within 120 s:\n{log.read_text()[-3000:]}")


def teachers_link(url: str, lesson: str) -> str:
    logging.getLogger("streamlit").setLevel(logging.ERROR)  # imported outside a server: it warns about caches
    from seqlab.app.lessons.lesson import topic_label  # the picker's label, as the link holds it

    query = urllib.parse.urlencode({"lessons.lesson": topic_label(lesson), "lessons.teacher.lock": "true"})
    return f"{url}/lessons?{query}"


async def one_session(browser, link: str) -> tuple[float, float | None]:
    """Seconds from opening ``link`` in a fresh context until the served results show (their "Trained ..." line
    above the comparison), and until the view inside them starts ("Inside the runs"; ``None``: not within a
    minute more)."""
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = await context.new_page()
        started = time.monotonic()
        await page.goto(link, timeout=TIMEOUT_MS)
        await page.get_by_text("with the same settings, seed, data and code").wait_for(timeout=TIMEOUT_MS)
        shown = time.monotonic() - started
        try:
            await page.get_by_text("Inside the runs").wait_for(timeout=60_000)
        except PlaywrightTimeout:
            return shown, None
        return shown, time.monotonic() - started
    finally:
        await context.close()


async def classroom(link: str, sessions: int) -> list[tuple[float, float | None]]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        try:
            first = await one_session(browser, link)  # the server's first run imports TensorFlow and the app
            print(f"first session (cold server): results {first[0]:.2f} s", flush=True)
            return await asyncio.gather(*(one_session(browser, link) for _ in range(sessions)))
        finally:
            await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lesson", default="gru-gates", help="the lesson's name (python -m seqlab presets)")
    parser.add_argument("--sessions", type=int, default=25, help="browsers opening the link at once")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        runs = Path(folder) / "runs"
        started = time.monotonic()
        trained = train_once(args.lesson, runs)
        print(f"trained {args.lesson} once: {len(trained)} runs in {time.monotonic() - started:.0f} s", flush=True)
        server, url = start_server(runs, Path(folder) / "streamlit.log")
        try:
            timings = asyncio.run(classroom(teachers_link(url, args.lesson), args.sessions))
        finally:
            server.terminate()
            server.wait(timeout=30)
        left = sorted(p.name for p in runs.iterdir() if not p.name.startswith("."))
    seconds = [shown for shown, _ in timings]
    for i, (shown, inside) in enumerate(sorted(timings), start=1):
        print(f"session {i:2d}  results {shown:5.2f} s  view {'-' if inside is None else f'{inside:5.2f} s'}")
    within = sum(s <= TARGET_SECONDS for s in seconds)
    print(f"{within} of {len(seconds)} sessions showed the results within {TARGET_SECONDS:.0f} s; "
          f"median {statistics.median(seconds):.2f} s, slowest {max(seconds):.2f} s; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"runs in the store afterwards: {len(left)} (trained {len(trained)}: "
          f"{'nothing trained again' if left == sorted(trained) else 'SOMETHING TRAINED AGAIN'})")


if __name__ == "__main__":
    main()
