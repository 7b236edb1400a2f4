"""Shared look: colours, axis titles with units, the common layout."""

from __future__ import annotations

import plotly.graph_objects as go

from seqlab.tasks.metrics import squared_unit  # noqa: F401  the unit of a squared error, shared with the CLI

# One colour per role, the same in every figure.
COLORS = {
    "series": "#1f77b4",
    "history": "#5b6770",
    "actual": "#111111",
    "model": "#d62728",
    "train": "#1f77b4",
    "train_batch": "rgba(31, 119, 180, 0.5)",
    "val": "#ff7f0e",
    "seasonal": "#2ca02c",
    "naive": "#9467bd",
    "served": "#d62728",
    "baseline": "#9aa5ad",
}
SPLIT_COLORS = {"train": "#1f77b4", "validation": "#ff7f0e", "test": "#2ca02c"}
EXTRA_COLORS = ("#17becf", "#8c564b", "#e377c2", "#bcbd22", "#7f7f7f")


def axis_title(name: str, unit: str | None) -> str:
    """``"Demand (GW)"``, or just ``"y"`` when the column has no unit."""
    return f"{name} ({unit})" if unit else name


def base_layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_layout(
        title=dict(text=title, x=0.0, xanchor="left", y=0.98, yref="container", yanchor="top"),
        height=height,
        margin=dict(l=60, r=20, t=50, b=40),
        hovermode="x unified",
        font=dict(size=14),  # plotly's 12 is too small for a projector
        # Below the plot, left-aligned: long legends wrap instead of covering the title.
        legend=dict(orientation="h", yref="container", y=0.0, yanchor="bottom", x=0.0, xanchor="left"),
    )
    return fig
