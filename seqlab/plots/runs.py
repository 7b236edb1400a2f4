"""Comparing runs: each run's test error beside its best baseline's."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from seqlab.plots.style import COLORS, axis_title, base_layout
from seqlab.plots.training import label_log_ticks


def runs_comparison(
    labels: list[str],
    model_error: list[float],
    baseline_error: list[float],
    metric: str = "MAE",
    unit: str = "",
    title: str | None = None,
    log_y: bool = False,
) -> go.Figure:
    """Grouped bars: the model's test metric and the best baseline's, per run.

    ``log_y``: a log axis (for errors of very different sizes: one huge bar
    no longer flattens the rest), said in the axis title; only where every
    value is positive.
    """
    if not (len(labels) == len(model_error) == len(baseline_error)):
        raise ValueError("labels, model_error and baseline_error must have the same length.")
    bars = {"model": (model_error, COLORS["model"]), "best baseline": (baseline_error, COLORS["baseline"])}
    # A legend entry only beside bars: a series without a value (no baseline scored) is left out.
    fig = go.Figure([go.Bar(x=labels, y=values, name=name, marker_color=colour)
                     for name, (values, colour) in bars.items() if any(v == v for v in values)])
    fig.update_layout(barmode="group", bargap=0.3)
    values = [v for v in (*model_error, *baseline_error) if v == v]  # NaN left out
    log_y = log_y and bool(values) and min(values) > 0
    if log_y:
        # A log axis's bars rise from its bottom: half a decade under the smallest value keeps the winner's visible.
        fig.update_yaxes(title_text=axis_title(f"test {metric}", unit) + ", log scale", type="log",
                         range=[math.log10(min(values)) - 0.5, math.log10(max(values)) + 0.1])
        label_log_ticks(fig, values)
    else:
        fig.update_yaxes(title_text=axis_title(f"test {metric}", unit), rangemode="tozero")
    fig.update_xaxes(title_text="run")
    fig = base_layout(fig, title or f"Test {metric} per run (lower is better)", 360)
    fig.update_layout(hovermode="closest")
    return fig
