"""An embedding matrix in its first two or three principal components, each point a token."""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from seqlab.plots.generated import shown_token
from seqlab.plots.style import COLORS, base_layout

NEIGHBOUR_COLOR = COLORS["val"]


def _label(token: str) -> str:
    return html.escape(shown_token(token), quote=False)  # plotly reads HTML: a token "<br>" must not break the line


def embedding_projection(
    points: np.ndarray,
    ids: Sequence[int],
    tokens: Sequence[str],
    explained: Sequence[float],
    chosen: int | None = None,
    neighbours: Sequence[int] = (),
    counts: Sequence[int] | None = None,
    labelled: int = 100,
    title: str = "Token embeddings (PCA)",
) -> go.Figure:
    """One labelled point per token in PC1-PC2 (``points`` ``(n, 2)``) or PC1-PC3 (``(n, 3)``, a 3-D scatter).

    Args:
        points: the tokens' embeddings projected on their principal axes (``seqlab.inspect.pca``).
        ids, tokens: each point's token id and text.
        explained: the share of the variance on each axis (0..1), shown on the axis titles.
        chosen: a token id drawn large, in the model colour; ``neighbours`` (ids) are ringed in orange.
        counts: each point's count in the training text, for the hover (``None``: unknown).
        labelled: the first ``labelled`` points carry their token as text (hundreds of labels overlap);
            every point has it on hover, and the chosen token and its neighbours always show it.
    """
    points = np.asarray(points, dtype="float64")
    n, dims = points.shape
    if dims not in (2, 3):
        raise ValueError(f"points must have 2 or 3 columns (principal components), got {dims}.")
    if not len(ids) == len(tokens) == n:
        raise ValueError(f"ids, tokens and points must have one entry per point ({n}).")
    ids = np.asarray(ids)
    near = np.isin(ids, [i for i in neighbours if i != chosen])
    labels = [_label(t) for t in tokens]
    texts = [label if r < labelled or near[r] or ids[r] == chosen else "" for r, label in enumerate(labels)]
    counted = [f"<br>{c:,} times in the training text" for c in counts] if counts is not None else [""] * n
    hover = [f"<b>{label}</b> (id {i}){c}" for label, i, c in zip(labels, ids, counted)]
    groups = [
        ("tokens", ~near & (ids != chosen), dict(color=COLORS["series"], size=5, opacity=0.6), "#5b6770"),
        ("nearest by cosine", near, dict(color=NEIGHBOUR_COLOR, size=9, line=dict(color="#111111", width=1)),
         "#111111"),
        ("chosen token", ids == chosen, dict(color=COLORS["model"], size=13, symbol="diamond"), COLORS["model"]),
    ]  # fmt: skip
    fig = go.Figure()
    for name, rows, marker, text_color in groups:
        if not rows.any():
            continue
        xyz = {axis: points[rows, k] for k, axis in enumerate("xyz"[:dims])}
        common = dict(
            mode="markers+text", name=name, marker=marker, text=[texts[r] for r in np.flatnonzero(rows)],
            textposition="top center", textfont=dict(size=10 if name == "tokens" else 12, color=text_color),
            customdata=[hover[r] for r in np.flatnonzero(rows)],
        )
        if dims == 2:
            fig.add_trace(go.Scatter(**xyz, **common, hovertemplate="%{customdata}<br>PC1 %{x:.3f}, PC2 %{y:.3f}"
                                                                        "<extra></extra>"))
        else:
            fig.add_trace(go.Scatter3d(**xyz, **common, hovertemplate="%{customdata}<br>PC1 %{x:.3f}, PC2 %{y:.3f}, "
                                                                          "PC3 %{z:.3f}<extra></extra>"))
    axes = [f"PC{k + 1} ({100 * float(explained[k]):.0f} % of variance)" for k in range(dims)]
    fig = base_layout(fig, title, 560 if dims == 2 else 640)
    fig.update_layout(hovermode="closest")
    if dims == 2:
        fig.update_xaxes(title_text=axes[0], zeroline=False)
        fig.update_yaxes(title_text=axes[1], zeroline=False)
    else:
        fig.update_layout(scene=dict(xaxis_title=axes[0], yaxis_title=axes[1], zaxis_title=axes[2]),
                          margin=dict(l=0, r=0, t=50, b=0))  # fmt: skip
    return fig
