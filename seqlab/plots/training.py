"""Loss curves from training events, live or from a run's history."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from seqlab.plots.style import COLORS, base_layout
from seqlab.tasks.loss_scale import LossScale, plain_scale
from seqlab.tasks.translate import FREE_RUNNING


def nice_log_ticks(low: float, high: float) -> list[float]:
    """At least three ticks inside ``[low, high]``, written out in full (plotly's minor labels are bare digits).

    Powers of ten when the values span decades, 1-2-5 steps when fewer, finer steps
    within one decade (a loss going from 0.5 to 0.26 would otherwise get no tick at all).
    """
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    for mantissas in ((1,), (1, 2, 5), (1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9)):
        ticks = [m * 10.0**e for e in range(first, last + 1) for m in mantissas]
        inside = [float(f"{t:.6g}") for t in ticks if low <= t <= high]
        if len(inside) >= 3:
            return inside
    if len(inside) >= 2:
        return inside
    return [float(f"{v:.3g}") for v in (low, math.sqrt(low * high), high)]  # a sliver of a decade


def batch_epochs(batches: list[dict], steps: int | None = None) -> list[float]:
    """Where batch events sit on an x axis in epochs: step s of epoch e at ``e - 1 + s / steps``
    (``steps``: batches per epoch, inferred from the events when ``None``)."""
    steps = steps or max((b["step"] for b in batches), default=1)
    return [b["epoch"] - 1 + b["step"] / steps for b in batches]


def label_log_ticks(fig: go.Figure, values: list[float]) -> None:
    """Label a log y axis with 1-2-5 ticks written in full (plotly's minor labels are bare digits)."""
    positive = [v for v in values if v > 0]
    if positive:
        ticks = nice_log_ticks(min(positive), max(positive))
        fig.update_yaxes(tickvals=ticks, ticktext=[f"{t:g}" for t in ticks])


def epoch_loss_axes(fig: go.Figure, scale: LossScale, shown: float) -> None:
    """The loss axis as ``scale`` reads it (log ticks written in full) over an x axis of ``shown`` epochs."""
    fig.update_yaxes(title_text=scale.title, type="log" if scale.log_y else "linear")
    if scale.log_y:
        label_log_ticks(fig, [v for trace in fig.data for v in trace.y if v is not None])
    fig.update_xaxes(title_text="epoch", range=[0, shown * 1.02], dtick=1 if shown <= 20 else None, rangemode="tozero")


def loss_curves(
    batches: list[dict],
    epochs: list[dict],
    steps_per_epoch: int | None = None,
    total_epochs: int | None = None,
    title: str = "Training loss",
    scale: LossScale | None = None,
) -> go.Figure:
    """Per-batch training loss as a thin line, per-epoch train and validation loss as markers.

    Args:
        batches: ``batch`` events (``epoch``, ``step``, ``batch_loss`` or ``loss``).
        epochs: ``epoch`` events (``epoch``, ``loss``, ``val_loss``).
        steps_per_epoch: batches per epoch; inferred from the events when ``None``.
        total_epochs: fix the x-axis to ``[0, total_epochs]`` (live view: the curve grows into it).
        scale: how the loss reads (``Task.loss_scale``: ``MSE (GW²)``, bits per character, ...);
            default the MSE itself.

    Returns:
        A figure with x in epochs: a batch at step s of epoch e sits at ``e - 1 + s / steps``.
    """
    scale = scale or plain_scale("mse")
    log_y = scale.log_y
    fig = go.Figure()
    if batches:
        fig.add_trace(
            go.Scatter(
                x=batch_epochs(batches, steps_per_epoch),
                y=scale.values(b.get("batch_loss", b["loss"]) for b in batches),
                name="train, per batch",
                mode="lines",
                line=dict(width=1, color=COLORS["train_batch"]),
                hovertemplate="epoch %{x:.2f}<br>batch: %{y:.4g}<extra></extra>",
            )
        )
    if epochs:
        fig.add_trace(
            go.Scatter(
                x=[e["epoch"] for e in epochs],
                y=scale.values(e["loss"] for e in epochs),
                name="train, epoch mean",
                mode="lines+markers",
                line=dict(width=2, color=COLORS["train"]),
                marker=dict(size=8),
            )
        )
        if any("val_loss" in e for e in epochs):
            fig.add_trace(
                go.Scatter(
                    x=[e["epoch"] for e in epochs if "val_loss" in e],
                    y=scale.values(e["val_loss"] for e in epochs if "val_loss" in e),
                    name="validation",
                    mode="lines+markers",
                    line=dict(width=2, color=COLORS["val"]),
                    marker=dict(size=8, symbol="diamond"),
                )
            )
        if any(FREE_RUNNING in e for e in epochs):  # a translation: fed its own tokens, not the reference's
            fig.add_trace(
                go.Scatter(
                    x=[e["epoch"] for e in epochs if FREE_RUNNING in e],
                    y=scale.values(e[FREE_RUNNING] for e in epochs if FREE_RUNNING in e),
                    name="validation, free-running",
                    mode="lines+markers",
                    line=dict(width=2, color=COLORS["val"], dash="dot"),
                    marker=dict(size=8, symbol="diamond-open"),
                )
            )
    epoch_loss_axes(fig, scale, total_epochs or max([e["epoch"] for e in epochs] + [b["epoch"] for b in batches] + [1]))
    if not batches and not epochs:
        fig.add_annotation(text="waiting for the first batch…", x=0.5, y=0.5, xref="paper", yref="paper",
                           showarrow=False, font=dict(size=16, color="#888888"))
        fig.update_yaxes(range=[-2, 1] if log_y else [0, 1], showticklabels=False)
    fig = base_layout(fig, title, 380)
    fig.update_layout(hovermode="closest")
    return fig


def learning_rate_per_batch(batches: list[dict], title: str = "Learning rate per training batch") -> go.Figure:
    """The rate the optimizer applied at every batch (``learning_rate`` of the batch events), x in epochs as the
    loss curves: a cosine schedule's linear warm-up from 0 and its decay to a tenth, a constant rate flat."""
    rows = [b for b in batches if b.get("learning_rate") is not None]
    fig = go.Figure(
        go.Scatter(x=batch_epochs(rows), y=[b["learning_rate"] for b in rows], mode="lines", name="η per batch",
                   line=dict(width=1.5, color=COLORS["train"]),
                   hovertemplate="epoch %{x:.2f}<br>η = %{y:.3g}<extra></extra>")
    )
    shown = max([b["epoch"] for b in rows] + [1])
    fig.update_xaxes(title_text="epoch", range=[0, shown * 1.02], dtick=1 if 2 <= shown <= 20 else None)
    fig.update_yaxes(title_text="learning rate η", rangemode="tozero", exponentformat="power")
    fig = base_layout(fig, title, 380)
    fig.update_layout(hovermode="closest", showlegend=False)
    return fig
