"""Comparing several runs of one lesson: their validation curves on one chart."""

from __future__ import annotations

import plotly.graph_objects as go

from seqlab.plots.style import COLORS, EXTRA_COLORS, base_layout
from seqlab.plots.training import label_log_ticks

RUN_COLORS = (COLORS["model"], COLORS["train"], COLORS["seasonal"], *EXTRA_COLORS)


def validation_curves(
    curves: dict[str, tuple[list[int], list[float]]],
    y_title: str,
    baseline: tuple[str, float] | None = None,
    total_epochs: int | None = None,
    title: str = "Validation loss per epoch",
    log_y: bool = True,
) -> go.Figure:
    """One line per run (label -> (epochs, losses)), and a dashed line for a baseline's loss.

    Args:
        curves: run label -> the epoch numbers and validation losses seen so far.
        y_title: the loss axis title with its unit, e.g. ``MSE`` or ``MSE (GW²)``.
        baseline: ``(label, loss)`` drawn as a horizontal dashed line (the level to beat).
        total_epochs: fix the x axis to ``[0.5, total_epochs + 0.5]`` so live curves grow into it.
    """
    fig = go.Figure()
    for i, (label, (epochs, losses)) in enumerate(curves.items()):
        fig.add_trace(
            go.Scatter(
                x=epochs, y=losses, name=label, mode="lines+markers",
                line=dict(color=RUN_COLORS[i % len(RUN_COLORS)], width=2),
            )
        )
    if baseline is not None:
        name, level = baseline
        fig.add_hline(y=level, line=dict(color=COLORS["baseline"], dash="dash", width=2))
        # An invisible trace so the baseline has a legend entry like the runs.
        fig.add_trace(go.Scatter(x=[None], y=[None], name=name, mode="lines",
                                 line=dict(color=COLORS["baseline"], dash="dash", width=2)))
    fig.update_xaxes(title_text="epoch", dtick=1 if (total_epochs or 0) <= 20 else None,
                     range=[0.5, total_epochs + 0.5] if total_epochs else None)
    fig.update_yaxes(title_text=y_title, type="log" if log_y else "linear")
    if log_y:
        label_log_ticks(fig, [v for _, losses in curves.values() for v in losses] + ([baseline[1]] if baseline else []))
    return base_layout(fig, title, 380)
