"""The costliest test files first: the suite's two workers each take whole files (``--dist loadfile``) in collection
order (``--no-loadscope-reorder``), so a file that takes a minute starts early rather than last, while the other
worker runs through the short ones, and both finish near the same time.

``file_seconds.json`` holds each file's seconds on this project's 2-core machine (setup, call and teardown of its
tests together); a file missing from it counts as a short one. Measure it anew after large changes:

    SEQLAB_TEST_COSTS=tests/file_seconds.json bash scripts/test.sh -q

It only orders the files: no test depends on the order, and a stale table costs time, not correctness.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

COSTS = Path(__file__).with_name("file_seconds.json")
RECORD_ENV = "SEQLAB_TEST_COSTS"
_measured: defaultdict[str, float] = defaultdict(float)


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config, items) -> None:
    seconds = json.loads(COSTS.read_text()) if COSTS.is_file() else {}
    order = {path: i for i, path in enumerate(dict.fromkeys(file_of(item.nodeid) for item in items))}
    # Stable: each file's tests keep their order, and files of equal cost their collection order.
    items.sort(key=lambda item: (-seconds.get(file_of(item.nodeid), 0.0), order[file_of(item.nodeid)]))


def pytest_runtest_logreport(report) -> None:
    if os.environ.get(RECORD_ENV):  # on the controller, xdist replays every worker's reports here
        _measured[file_of(report.nodeid)] += report.duration


def pytest_sessionfinish(session) -> None:
    target = os.environ.get(RECORD_ENV)
    if target and _measured and not hasattr(session.config, "workerinput"):  # the controller writes, once
        table = {path: round(seconds, 1) for path, seconds in sorted(_measured.items(), key=lambda kv: -kv[1])}
        Path(target).write_text(json.dumps(table, indent=1) + "\n")
