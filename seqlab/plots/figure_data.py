"""The numbers a figure draws, as a table: what a figure's CSV download holds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go


def figure_table(fig: go.Figure) -> pd.DataFrame:
    """The numbers a figure draws, long form: one row per point (``trace, x, y``) or cell (``trace, x, y, z``)."""
    frames = []
    for i, trace in enumerate(fig.data):
        name = trace.name or f"trace {i + 1}"
        z = getattr(trace, "z", None)
        if z is not None:  # a heatmap: every cell with its row and column labels
            z = np.asarray(z)
            if z.ndim != 2:
                continue
            xs = list(trace.x) if trace.x is not None else list(range(z.shape[1]))
            ys = list(trace.y) if trace.y is not None else list(range(z.shape[0]))
            rows, cols = np.indices(z.shape)
            frames.append(pd.DataFrame({"trace": name, "x": np.asarray(xs, dtype=object)[cols.ravel()],
                                        "y": np.asarray(ys, dtype=object)[rows.ravel()], "z": z.ravel()}))
            continue
        x, y = getattr(trace, "x", None), getattr(trace, "y", None)
        if x is None and y is None:
            continue
        n = len(y) if y is not None else len(x)
        frames.append(pd.DataFrame({"trace": name, "x": list(x) if x is not None else list(range(n)),
                                    "y": list(y) if y is not None else [None] * n}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["trace", "x", "y"])
