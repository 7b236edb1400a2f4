"""Page switch time in a real browser: a click on a sidebar page until Streamlit has finished running it.

    streamlit run streamlit_app.py --server.headless true --server.port 8599 &
    python -m bench.page_switch [--url http://localhost:8599] [--rounds 2]

Drives Debian's chromium (``/usr/bin/chromium``) through Playwright at
1400x900. Each round clicks every page of the sidebar in turn and waits
until Streamlit's running indicator is gone; the first round (cold caches)
is not printed. Every time includes a 0.4 s floor: the indicator appears
only after a short delay, so an earlier check could see a page that has not
started. Train a run or two first (``python -m seqlab train ...``) so the
pages have something to draw.
"""

from __future__ import annotations

import argparse
import time

PAGES = ("Home", "Lessons", "Data", "Train", "Models", "Compare", "Inspect", "Forecast", "Translate", "Generate")
FLOOR_MS = 400


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://localhost:8599")
    parser.add_argument("--rounds", type=int, default=2, help="warm rounds printed, after one cold round")
    args = parser.parse_args()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(args.url)
        page.get_by_role("link", name="Home", exact=True).first.wait_for(timeout=90_000)
        for round_ in range(args.rounds + 1):
            for name in PAGES:
                started = time.monotonic()
                page.get_by_role("link", name=name, exact=True).first.click()
                page.wait_for_timeout(FLOOR_MS)
                page.wait_for_function("() => !document.querySelector('[data-testid=stStatusWidget]')",
                                       timeout=90_000)
                if round_:
                    print(f"round {round_}  {name:10s} {time.monotonic() - started:5.2f} s", flush=True)
        browser.close()


if __name__ == "__main__":
    main()
