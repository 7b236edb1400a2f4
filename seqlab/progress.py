"""How far long work deep inside a call has come (the test split's predictions, the baselines), to whoever listens.

The work says it with ``report(message, done, total, unit)``; ``run_experiment``
listens (``listening``) and turns every report into a ``progress`` event with its
ETA (``seqlab.training.events``), which the dashboard and the CLI draw. Work that
nobody listens to reports to no one, so a task's functions stay plain functions
with their own signatures. The listener belongs to the calling thread's context
(``contextvars``): two jobs training in two threads never hear each other.
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from typing import Callable, Iterator

Listener = Callable[[str, int, int, str], None]
# What a job does between its start event and its first batch, which traces and compiles the training step.
FIRST_BATCH = "the first batch (it also compiles the training step, this once)"

_LISTENER: contextvars.ContextVar[Listener | None] = contextvars.ContextVar("seqlab.progress", default=None)


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Within the block, this thread's ``report`` calls go to ``listener(message, done, total, unit)``."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


def report(message: str, done: int, total: int, unit: str) -> None:
    """``done`` of ``total`` ``unit`` (windows, steps) of the work ``message`` names are done."""
    listener = _LISTENER.get()
    if listener is not None:
        listener(message, done, total, unit)
