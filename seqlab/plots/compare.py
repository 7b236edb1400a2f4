"""Comparing several runs of one lesson on one chart: their validation curves, or their losses as they train."""

from __future__ import annotations

import plotly.graph_objects as go

from seqlab.plots.style import COLORS, EXTRA_COLORS, base_layout
from seqlab.plots.training import batch_epochs, epoch_loss_axes, label_log_ticks
from seqlab.tasks.loss_scale import LossScale

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


def batch_loss_curves(
    runs: dict[str, tuple[list[dict], list[dict], int | None]],
    scale: LossScale,
    total_epochs: int | None = None,
    title: str = "Loss while training (thin: each batch; markers: validation after each epoch)",
) -> go.Figure:
    """Each run's training loss per batch as a thin line and its validation loss per epoch as markers, in the
    run's colour: the Train page's live curve (``loss_curves``) for several runs at once.

    Args:
        runs: run label -> its ``batch`` events, its ``epoch`` events and its batches per epoch (``None``:
            inferred from the events); a run without events yet draws nothing.
        scale: how the loss reads (``Task.loss_scale``), the same for every run.
        total_epochs: fix the x axis to ``[0, total_epochs]`` so the live curves grow into it.
    """
    fig = go.Figure()
    for i, (label, (batches, epochs, steps)) in enumerate(runs.items()):
        colour = RUN_COLORS[i % len(RUN_COLORS)]
        if batches:
            fig.add_trace(go.Scatter(
                x=batch_epochs(batches, steps), y=scale.values(b.get("batch_loss", b["loss"]) for b in batches),
                name=f"{label}, per batch", legendgroup=label, mode="lines", opacity=0.6,
                line=dict(width=1, color=colour),
                hovertemplate=f"{label}<br>epoch %{{x:.2f}}<br>batch: %{{y:.4g}}<extra></extra>",
            ))
        validated = [e for e in epochs if "val_loss" in e]
        if validated:
            fig.add_trace(go.Scatter(
                x=[e["epoch"] for e in validated], y=scale.values(e["val_loss"] for e in validated),
                name=f"{label}, validation", legendgroup=label, mode="lines+markers",
                line=dict(width=2, color=colour), marker=dict(size=8, symbol="diamond"),
            ))
    shown = total_epochs or max([b["epoch"] for batches, _, _ in runs.values() for b in batches] + [1])
    epoch_loss_axes(fig, scale, shown)
    fig = base_layout(fig, title, 380)
    fig.update_layout(hovermode="closest")
    return fig
