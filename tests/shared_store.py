"""Runs trained once for the whole test session and read by every test file that needs them, on both workers.

pytest-xdist gives each worker its own temporary folder under one the session shares; a ``SharedStore`` lives in
that common folder. ``once(key, train)`` trains under a file lock per key: the first worker to ask trains, one that
asks meanwhile waits and then reads the same runs, and later files read them at once. Its data cache holds the fake
movie reviews (``tests.data.test_movie_sentiment``), so nothing is fetched from the network.
"""

from __future__ import annotations

import json
import os
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator

import pytest
from filelock import FileLock

from seqlab.runs import Run, RunStore


_SESSION: list[Path] = []  # the temporary folder every worker of this test session shares


def share_session_folder(tmp_path_factory) -> None:
    """Note the session's shared folder (the root conftest does, before any test)."""
    base = tmp_path_factory.getbasetemp()
    _SESSION[:] = [base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base]


class SharedStore:
    """A run store and data cache named ``name`` in the session's shared folder."""

    def __init__(self, name: str):
        self.root = _SESSION[0] / name
        self.root.mkdir(exist_ok=True)
        self.store = RunStore(self.root / "runs")
        self.cache = self.root / "cache"

    @contextmanager
    def offline(self) -> Iterator[pytest.MonkeyPatch]:
        """This store's cache found through ``SEQLAB_CACHE``, the fake movie reviews in it, the network never
        reached."""
        from tests.data.test_movie_sentiment import cached, offline

        with FileLock(self.root / "cache.lock"):
            if not (self.cache / "movie_sentiment").exists():
                cached(self.cache / "movie_sentiment")
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("SEQLAB_CACHE", str(self.cache))
            patch.setattr(subprocess, "run", offline)
            yield patch

    def once(self, key: str, train: Callable[[RunStore], Iterable[Run]]) -> list[Run]:
        """The runs ``train(store)`` makes, made by the first worker that asks for ``key`` and read by the rest."""
        done = self.root / f"{key}.json"
        with FileLock(self.root / f"{key}.lock"):
            if not done.exists():
                with self.offline():
                    ids = [run.run_id for run in train(self.store)]
                done.write_text(json.dumps(ids))
        return [self.store.read(run_id) for run_id in json.loads(done.read_text())]
