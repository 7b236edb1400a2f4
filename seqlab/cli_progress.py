"""A one-line text progress bar on a stream, fed with training events."""

from __future__ import annotations

import sys
from typing import TextIO

WIDTH = 30


class ProgressBar:
    def __init__(self, stream: TextIO = sys.stderr):
        self.stream = stream
        self.total = None
        self.epochs = None
        self.drawn = False

    def update(self, events: list[dict], seen: int) -> int:
        """Draw the newest state from ``events``; return the new count of events seen."""
        last_batch = None
        for event in events:
            kind = event["type"]
            if kind == "start":
                self.total = event["epochs"] * event["steps_per_epoch"]
                self.epochs = event["epochs"]
                print(f"training on {event['device']}", file=self.stream)
            elif kind == "batch" and self.total:
                last_batch = event
            elif kind == "epoch":
                last_batch = None
                self._newline()
                val = f"  val_loss {event['val_loss']:.4g}" if "val_loss" in event else ""
                print(f"epoch {event['epoch']}/{self.epochs}  loss {event['loss']:.4g}{val}", file=self.stream)
            elif kind == "status":
                self._newline()
                print(event["message"], file=self.stream)
            elif kind == "note":
                self._newline()
                print(f"note: {event['message']}", file=self.stream)
        if last_batch is not None:  # redraw once per update, not once per batch
            self._draw(last_batch)
        return seen + len(events)

    def _draw(self, event: dict) -> None:
        fraction = min(event["global_step"] / self.total, 1.0)
        eta = event["elapsed"] / fraction * (1 - fraction)
        filled = int(WIDTH * fraction)
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (WIDTH - filled)}] {fraction:5.1%}  epoch {event['epoch']}"
            f"  loss {event['loss']:.4g}  ETA {eta:4.0f} s"
        )
        self.stream.flush()
        self.drawn = True

    def _newline(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.drawn = False

    def close(self) -> None:
        self._newline()
