"""The dataset preview: target and exogenous inputs on their own y-axes, splits marked."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from seqlab.plots.style import COLORS, EXTRA_COLORS, SPLIT_COLORS, axis_title, base_layout

GAP = 0.06  # vertical gap between the input axes, as a fraction of the plot height
TOP = 0.5  # the target's axis starts here; its range slider sits right below it


def _domains(n: int) -> list[tuple[float, float]]:
    """Stacked y-axis domains from the top: the target on top, then its slider, then the inputs."""
    if n == 1:
        return [(0.0, 1.0)]
    space = TOP - 0.18  # room left for the target's tick labels and range slider
    height = (space - GAP * (n - 2)) / (n - 1)
    domains = [(TOP, 1.0)]
    top = space
    for _ in range(n - 1):
        domains.append((max(top - height, 0.0), top))
        top -= height + GAP
    return domains


def dataset_preview(
    frame: pd.DataFrame,
    target: str,
    units: dict[str, str] | None = None,
    splits: dict[str, tuple[int, int]] | None = None,
    title: str | None = None,
) -> go.Figure:
    """A zoomable time-series figure of every column of ``frame``.

    Args:
        frame: one row per time step; the index is time (``DatetimeIndex``) or a step number.
        target: the column to predict; drawn on top, tallest.
        units: column -> unit, shown in each y-axis title.
        splits: split name -> ``(first_row, end_row)`` (end exclusive), shaded across all axes.
        title: figure title (default: the target's name).

    Returns:
        One subplot per column stacked top to bottom (``yaxis`` is the target, ``yaxis2``
        the first input, ...), their x-axes matched (zoom one, zoom all), and a range
        slider right under the target, showing the target.
    """
    units = units or {}
    if target not in frame.columns:
        raise ValueError(f"target {target!r} is not a column; columns: {list(frame.columns)}.")
    columns = [target] + [c for c in frame.columns if c != target]
    n = len(columns)
    x = frame.index
    time_axis = isinstance(x, pd.DatetimeIndex)
    x_title = "time" if time_axis else axis_title(x.name or "step", None)
    fig = go.Figure()
    for i, (column, domain) in enumerate(zip(columns, _domains(n))):
        k = "" if i == 0 else str(i + 1)
        values = frame[column]
        is_flag = set(pd.unique(values.dropna())) <= {0, 1}
        color = COLORS["series"] if i == 0 else EXTRA_COLORS[(i - 1) % len(EXTRA_COLORS)]
        name = axis_title(column, units.get(column))
        fig.add_trace(
            go.Scatter(
                x=x, y=values, name=name, xaxis=f"x{k}", yaxis=f"y{k}", mode="lines",
                line=dict(width=1, color=color, shape="hv" if is_flag else "linear"),
                showlegend=False,
                hovertemplate=f"%{{y:.4g}} {units.get(column, '')}<extra>{column}</extra>",
            )
        )
        y_axis = dict(domain=list(domain), title=dict(text=name), anchor=f"x{k}")
        if is_flag:
            y_axis.update(tickvals=[0, 1], range=[-0.15, 1.15])
        x_axis = dict(anchor=f"y{k}")
        if i == 0:
            x_axis["rangeslider"] = dict(visible=True, thickness=0.06)
            if n == 1:
                x_axis["title"] = dict(text=x_title)
        else:
            x_axis.update(matches="x", showticklabels=i == n - 1)
            if i == n - 1:
                x_axis["title"] = dict(text=x_title)
        fig.update_layout({f"xaxis{k}": x_axis, f"yaxis{k}": y_axis})

    for name, (start, end) in (splits or {}).items():
        start, end = max(int(start), 0), min(int(end), len(frame))
        if end <= start:
            continue
        last = min(end, len(frame) - 1)
        color = SPLIT_COLORS.get(name, "#999999")
        for i in range(n):
            k = "" if i == 0 else str(i + 1)
            fig.add_shape(
                type="rect", xref=f"x{k}", yref=f"y{k} domain", x0=x[start], x1=x[last], y0=0, y1=1,
                fillcolor=color, opacity=0.08, line_width=0, layer="below",
            )
        fig.add_annotation(
            x=x[start + (last - start) // 2], y=1.0, xref="x", yref="paper", yanchor="bottom",
            text=f"<b>{name}</b>", showarrow=False, font=dict(color=color),
        )

    if time_axis:
        fig.update_layout(
            xaxis_rangeselector=dict(
                buttons=[
                    dict(count=7, label="1 week", step="day", stepmode="backward"),
                    dict(count=1, label="1 month", step="month", stepmode="backward"),
                    dict(step="all", label="all"),
                ],
                x=1.0, xanchor="right", y=1.06, yanchor="bottom",
            )
        )
    fig = base_layout(fig, title or axis_title(target, units.get(target)), 420 + 150 * (n - 1))
    fig.update_layout(margin=dict(t=110), hovermode="x unified")
    return fig
