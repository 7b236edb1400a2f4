"""Where the suite's time goes, per test file: wall seconds, this worker's CPU seconds and its children's (servers,
command lines, fresh interpreters), the rest being waits (a browser, a lock, a busy CPU).

    SEQLAB_CPU_BY_FILE=/tmp/cpu python -m pytest -p tests.cpu_by_file -n 2 --dist loadfile
    python -m tests.cpu_by_file /tmp/cpu      # the table, costliest first

Each worker writes ``<pid>.json`` into the folder at its end. Children count once reaped (``RUSAGE_CHILDREN``):
daemons that outlive a test (Ray's) are missed. ``runs`` counts the run folders the worker wrote (``RunStore.write``)
and ``writing`` their seconds in it (the files, the model and its SavedModel), of the wall seconds.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

import pytest

_seen: dict[str, list[float]] = {}
_writes = [0, 0.0]  # runs written and their seconds, since the test began


def pytest_configure(config):
    from seqlab.runs import RunStore

    write = RunStore.write

    def counted(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return write(self, *args, **kwargs)
        finally:
            _writes[0] += 1
            _writes[1] += time.perf_counter() - started

    RunStore.write = counted


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    before = time.perf_counter(), _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN), *_writes
    yield
    after = time.perf_counter(), _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN), *_writes
    seen = _seen.setdefault(item.nodeid.split("::")[0], [0.0] * 5)
    for i in range(5):
        seen[i] += after[i] - before[i]


def pytest_sessionfinish(session):
    folder = os.environ.get("SEQLAB_CPU_BY_FILE")
    if folder and _seen:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / f"{os.getpid()}.json").write_text(json.dumps(_seen))


def table(folder: Path) -> str:
    seen: dict[str, list[float]] = {}
    for part in folder.glob("*.json"):
        seen.update(json.loads(part.read_text()))
    lines = [f"{'file':60s} {'wall':>6s} {'self':>6s} {'child':>6s} {'waits':>6s} {'runs':>5s} {'writing':>7s}"]
    for name, (wall, own, children, runs, writing) in sorted(seen.items(), key=lambda item: -item[1][0]):
        lines.append(f"{name:60s} {wall:6.0f} {own:6.0f} {children:6.0f} {wall - own - children:6.0f} {runs:5.0f} "
                     f"{writing:7.0f}")
    wall, own, children, runs, writing = (sum(values[i] for values in seen.values()) for i in range(5))
    lines.append(f"{'total':60s} {wall:6.0f} {own:6.0f} {children:6.0f} {wall - own - children:6.0f} {runs:5.0f} "
                 f"{writing:7.0f}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(Path(sys.argv[1])))
