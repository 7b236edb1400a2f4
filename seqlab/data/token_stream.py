"""A language model's split as its token stream: its windows are views of it, never all cut at once.

Cutting every training window ahead of time costs ``T / stride`` times the
text (stride 4 at a context of 256: 64 copies of it, 2.5 GB for a 10 MB
text). A ``TokenStream`` keeps the ids once, memory O(text); its ``x`` and
``y`` are read-only strided views of them (the windows every ``stride`` ids,
for whoever reads the split as windows), and training draws each batch at
random offsets (``random_windows``, as nanoGPT's ``get_batch``); validation
and test read the fixed windows:

    x = ids[s : s + T],  y = ids[s + 1 : s + T + 1],  s uniform in [0, len(ids) - T - 1]

An epoch still counts as many windows as the stride gives (``len``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from seqlab.data.sequence_data import Split


@dataclass(frozen=True)
class TokenStream(Split):
    """A ``Split`` whose windows are views of one token stream ``ids`` (module docstring); build with ``stream``."""

    ids: np.ndarray | None = None  # (L,) int32: the split's whole token stream
    lookback: int = 1

    def random_windows(self, rows: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``rows`` windows ``(rows, T)`` at offsets drawn from ``rng``, and their targets, the next ids."""
        starts = rng.integers(0, len(self.ids) - self.lookback, rows)
        positions = starts[:, None] + np.arange(self.lookback)[None, :]
        return self.ids[positions], self.ids[positions + 1]


def stream(ids: np.ndarray, lookback: int, stride: int) -> TokenStream:
    """The stream of ``ids``, whose windows every ``stride`` ids (the last needs one id after it) are its views."""
    ids = np.ascontiguousarray(ids, dtype="int32")
    ids.flags.writeable = False  # the views share it: nothing may change the windows under a reader
    x = sliding_window_view(ids[:-1], lookback)[::stride]
    y = sliding_window_view(ids[1:], lookback)[::stride]
    return TokenStream(x=x, y=y, origin=np.arange(0, len(ids) - lookback, stride), ids=ids, lookback=lookback)
