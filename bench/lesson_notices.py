"""Every lesson's "what to notice", checked on its runs: train each lesson as the app does, then measure its claims.

    python -m bench.lesson_notices [--only NAME ...] [--store DIR]

One lesson after another (never two at once: the seconds are the preset's
wall time), ``python -m seqlab train --preset NAME --json`` in a store of its
own (a fresh temporary one unless ``--store``, where runs trained before are
reused and their time is not training time), then each of the lesson's claims
(``seqlab.lessons.claim``) measured on the finished runs: its figures, PASS
when they show the lesson's point, FAIL when not, and the sentence the Lessons
page writes from them. Exits 1 when a claim fails or cannot be measured.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from seqlab.lessons import LESSONS  # noqa: E402
from seqlab.runs import RUNS_DIR_ENV, RunStore  # noqa: E402


def train(name: str, store: Path) -> tuple[list, float]:
    """The lesson's finished runs, trained by the CLI in ``store``, and the command's wall time."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "seqlab", "train", "--preset", name, "--json"], check=True,
                          capture_output=True, text=True, env={**os.environ, RUNS_DIR_ENV: str(store)})
    seconds = time.perf_counter() - started
    runs = json.loads(done.stdout.strip().splitlines()[-1])["runs"]
    found = RunStore(store)
    return [found.read(r["run_id"]) for r in runs if r["status"] == "completed"], seconds


def figures_text(figures) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in figures.items())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=LESSONS.names(), help="this lesson only (repeat for more)")
    parser.add_argument("--store", type=Path, help="the run store (default: a fresh temporary one)")
    args = parser.parse_args()
    names = args.only or [lesson.name for lesson in LESSONS.list() if lesson.claims]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="lesson_notices_") as scratch:
        store = args.store or Path(scratch)
        for name in names:
            lesson = LESSONS.get(name)
            runs, seconds = train(name, store)
            print(f"\n{name}: {len(runs)} of {len(lesson.preset.specs)} runs finished in {seconds:.1f} s "
                  f"(the lesson says {lesson.seconds:.0f} s)")
            for measured in lesson.measured(runs):
                if isinstance(measured, str):
                    failed += 1
                    print(f"  FAIL {measured}")
                    continue
                failed += not measured.holds
                print(f"  {'PASS' if measured.holds else 'FAIL'} {measured.claim}\n"
                      f"       {figures_text(measured.figures)}\n       {measured.sentence}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
