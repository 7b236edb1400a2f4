"""The receptive field of a temporal convolutional network's output step: the WaveNet dilation diagram.

Data in (a ``ReceptiveFieldTrace``'s levels and taps), ``go.Figure`` out.
Rows are levels (the input at the bottom, then each block's two causal
convolutions), columns the traced steps; the lines are the taps by which
output ``t`` reads, level by level, down to the input steps it depends on.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from seqlab.plots.inspect import time_ticks
from seqlab.plots.style import COLORS, base_layout

ROW_HEIGHT = 46  # pixels per level


def receptive_field_diagram(levels: Sequence[str], taps: Sequence[Sequence[tuple[int, int]]], time: Sequence,
                            t: int, title: str) -> go.Figure:
    """Every step of every level as a grey dot; the taps feeding output ``t`` as lines, the steps they reach filled.

    Args:
        levels: the level names, bottom up (``ReceptiveFieldTrace.levels``).
        taps: per level, the edges ``(step, source step one level down)`` (``ReceptiveFieldTrace.taps(t)``).
        time: one label per step (the x axis).
        t: the output step (0-based) whose field is drawn.
        title: the figure's title.
    """
    x, xaxis = time_ticks(time)
    steps, rows = len(x), len(levels)
    reached = [set() for _ in range(rows)]
    reached[-1].add(int(t))
    edge_x, edge_y = [], []
    for level in range(rows - 1, 0, -1):
        for step, source in taps[level]:
            edge_x += [x[step], x[source], None]
            edge_y += [level, level - 1, None]
            reached[level].add(step)
            reached[level - 1].add(source)
    grid_x = np.tile(x, rows)
    grid_y = np.repeat(np.arange(rows), steps)
    on_x = [x[s] for level in range(rows) for s in sorted(reached[level])]
    on_y = [level for level in range(rows) for _ in sorted(reached[level])]
    fig = go.Figure([
        go.Scatter(x=grid_x, y=grid_y, mode="markers", marker=dict(size=6, color=COLORS["baseline"]),
                   name="a step not read", hoverinfo="skip"),
        go.Scatter(x=edge_x, y=edge_y, mode="lines", line=dict(color=COLORS["model"], width=1.5),
                   name="a tap", hoverinfo="skip"),
        go.Scatter(x=on_x, y=on_y, mode="markers", marker=dict(size=10, color=COLORS["model"]),
                   name=f"read by output {time[t]}", hovertemplate="%{x}<extra></extra>"),
    ])
    base_layout(fig, title, height=110 + ROW_HEIGHT * rows)
    fig.update_layout(hovermode="closest")
    fig.update_xaxes(title="time step", **xaxis)
    fig.update_yaxes(tickmode="array", tickvals=list(range(rows)), ticktext=list(levels), range=[-0.5, rows - 0.5],
                     showgrid=False, zeroline=False)
    return fig
