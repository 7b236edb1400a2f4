"""A one-line text progress bar on a stream, fed with a job's events (``seqlab.training.events``).

Training draws its batches (percent of all, epoch, loss, ETA); a phase's
``progress`` events (the test split's predictions, the baselines) draw the same
bar for that work, with its own ETA; a phase without progress of its own
(building the model, the first batch that compiles the training step, the
export) shows its message and the seconds it has run, redrawn at every update
once it has run a second (a phase that ends sooner, as loading before a bad
option's error, leaves no line), so no phase is silent for long.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

from seqlab.progress import FIRST_BATCH

WIDTH = 30
QUIET_SECONDS = 1.0  # a phase shorter than this draws no line


class ProgressBar:
    def __init__(self, stream: TextIO = sys.stderr, clock: Callable[[], float] = time.time):
        self.stream = stream
        self.clock = clock
        self.total = None
        self.epochs = None
        self.drawn = None  # what the line being redrawn shows: "training", or a phase's message
        self.width = 0
        self.phase: tuple[str, float] | None = None  # a phase without progress of its own: message, start

    def update(self, events: list[dict], seen: int) -> int:
        """Draw the newest state from ``events``; return the new count of events seen."""
        last = None  # the newest batch or progress event: drawn once per update, not once per event
        for event in events:
            kind = event["type"]
            if kind in ("batch", "progress"):
                last = event if kind == "progress" or self.total else last
                self.phase = None
                continue
            last = None
            self._newline()
            if kind == "start":
                self.total = event["epochs"] * event["steps_per_epoch"]
                self.epochs = event["epochs"]
                print(f"training on {event['device']}", file=self.stream)
                self.phase = (FIRST_BATCH, self.clock())
            elif kind == "epoch":
                val = f"  val_loss {event['val_loss']:.4g}" if "val_loss" in event else ""
                print(f"epoch {event['epoch']}/{self.epochs}  loss {event['loss']:.4g}{val}", file=self.stream)
            elif kind == "status":
                self.phase = (event["message"], event.get("at", self.clock()))
            elif kind == "note":
                print(f"note: {event['message']}", file=self.stream)
        if last is not None:
            self._draw(last)
        elif self.phase is not None:
            self._draw_phase(*self.phase)
        return seen + len(events)

    def _draw(self, event: dict) -> None:
        if event["type"] == "progress":
            fraction = event["done"] / event["total"] if event["total"] else 1.0
            eta = event["eta"]
            text = f"{event['message']}  {event['done']:,}/{event['total']:,} {event['unit']}"
            what = event["message"]
        else:
            fraction = min(event["global_step"] / self.total, 1.0)
            eta = event["elapsed"] / fraction * (1 - fraction)
            text = f"epoch {event['epoch']}  loss {event['loss']:.4g}"
            what = "training"
        filled = int(WIDTH * fraction)
        left = f"  ETA {eta:4.0f} s" if eta is not None else ""
        self._write(what, f"[{'#' * filled}{'.' * (WIDTH - filled)}] {fraction:5.1%}  {text}{left}")

    def _draw_phase(self, message: str, started: float) -> None:
        seconds = self.clock() - started
        if seconds >= QUIET_SECONDS or self.drawn == message:
            self._write(message, f"{message}… {seconds:.0f} s")

    def _write(self, what: str, line: str) -> None:
        """Redraw the line of ``what``; another's line is ended first, so it stays as it was last drawn."""
        if what != self.drawn:
            self._newline()
        self.stream.write(f"\r{line.ljust(self.width)}")  # spaces over what a longer line before left
        self.stream.flush()
        self.drawn, self.width = what, len(line)

    def _newline(self) -> None:
        if self.drawn is not None:
            self.stream.write("\n")
            self.drawn, self.width = None, 0

    def close(self) -> None:
        self._newline()
