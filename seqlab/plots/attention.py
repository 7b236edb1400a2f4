"""An encoder-decoder's attention map, a beam search's hypotheses as a tree, and a source image.

The map has one row per target token written and one column per source token: row t is the attention
weights a_t(s) the decoder read the source with when it wrote token t (each row sums to 1). For local
attention the predicted position p_t and its window [p_t - D, p_t + D] are drawn over it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from seqlab.plots.generated import shown_token
from seqlab.plots.style import COLORS, base_layout

WEIGHTS = "Blues"  # 0 white -> 1 dark blue, as the HMM's probabilities


def _labels(tokens: Sequence[str]) -> list[str]:
    return [f"{k}: {shown_token(t)}" for k, t in enumerate(tokens, start=1)]


def attention_map(weights: np.ndarray, source: Sequence[str], written: Sequence[str],
                  positions: np.ndarray | None = None, half_width: int | None = None,
                  title: str = "Attention: where each target token looked") -> go.Figure:
    """Heatmap of ``weights`` ``(T, S)``: source tokens across, target tokens (``[EOS]`` last) down."""
    weights = np.asarray(weights, dtype="float64")[:, : len(source)]
    x, y = _labels(source), _labels(written)
    fig = go.Figure(go.Heatmap(
        z=weights, x=x, y=y, zmin=0.0, zmax=1.0, colorscale=WEIGHTS, colorbar=dict(title="weight a_t(s)"),
        hovertemplate="target %{y}<br>source %{x}<br>weight %{z:.3f}<extra></extra>",
    ))  # fmt: skip
    if positions is not None:  # p_t counts source positions from 0, the axis from its first label
        p = np.asarray(positions, dtype="float64")
        fig.add_trace(go.Scatter(x=p, y=y, xaxis="x2", mode="lines+markers", name="p_t (predicted position)",
                                 line=dict(color=COLORS["model"], width=2)))
        if half_width:
            for edge, name in ((p - half_width, "p_t − D"), (p + half_width, "p_t + D")):
                fig.add_trace(go.Scatter(x=edge, y=y, xaxis="x2", mode="lines", name=name,
                                         line=dict(color=COLORS["model"], width=1, dash="dash")))
        fig.update_layout(xaxis2=dict(overlaying="x", range=[-0.5, len(source) - 0.5], visible=False))
    fig.update_xaxes(title_text="source token", type="category", side="bottom",
                     tickangle=-45 if len(source) > 12 else 0)
    fig.update_yaxes(title_text="target token written", type="category", autorange="reversed")
    fig = base_layout(fig, title, max(320, 60 + 22 * len(written)))
    fig.update_layout(hovermode="closest")
    return fig


def source_image(image: np.ndarray, unit: str = "", title: str = "The source: one row per encoder step"
                 ) -> go.Figure:
    """A source of numbers ``(S, F)`` (an image, for a caption) as a grey heatmap, one row per encoder step."""
    image = np.asarray(image, dtype="float64")
    rows = [f"row {k}" for k in range(1, len(image) + 1)]
    fig = go.Figure(go.Heatmap(z=image, y=rows, colorscale="Greys", colorbar=dict(title=unit or "value"),
                               hovertemplate="%{y}, column %{x}: %{z}<extra></extra>"))
    fig.update_yaxes(title_text="encoder step", autorange="reversed", type="category")
    fig.update_xaxes(title_text="column", dtick=1)
    fig = base_layout(fig, title, 300)
    fig.update_layout(hovermode="closest", width=380)
    return fig


def beam_tree(hypotheses: Sequence[tuple[Sequence[str], float]], title: str = "Beam search: the hypotheses kept"
              ) -> go.Figure:
    """The final hypotheses ``(tokens, score)`` of a beam, best first, as a tree of their shared prefixes.

    Each node is a token at its step; hypotheses that share a prefix share its nodes, and each leaf says
    its hypothesis's score.
    """
    nodes: dict[tuple, tuple[float, float]] = {}  # prefix -> (step, row)
    edges_x, edges_y, leaves = [], [], []
    for rank, (tokens, score) in enumerate(hypotheses):
        parent = ()
        for step, token in enumerate(["[START]", *tokens], start=0):
            prefix = (*parent, token)
            if prefix not in nodes:
                nodes[prefix] = (step, rank)
                if parent:
                    (px, py), (x, y) = nodes[parent], nodes[prefix]
                    edges_x += [px, x, None]
                    edges_y += [py, y, None]
            parent = prefix
        leaves.append((nodes[parent], score, rank))
    fig = go.Figure(go.Scatter(x=edges_x, y=edges_y, mode="lines", line=dict(color="#9aa5ad"), hoverinfo="skip",
                               showlegend=False))
    xs, ys = zip(*nodes.values()) if nodes else ((), ())
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers+text", text=[shown_token(p[-1]) for p in nodes],
                             textposition="top center", marker=dict(size=7, color=COLORS["history"]),
                             showlegend=False, textfont=dict(family="monospace", size=14), hoverinfo="skip",
                             cliponaxis=False))  # a label may reach past the axes: drawn whole
    fig.add_trace(go.Scatter(
        x=[x + 0.6 for (x, _), _, _ in leaves], y=[y for (_, y), _, _ in leaves], mode="text",
        text=[f"score {score:.3f}" + (" (best)" if rank == 0 else "") for _, score, rank in leaves],
        textposition="middle right", showlegend=False, hoverinfo="skip", cliponaxis=False,
    ))  # fmt: skip
    fig.update_xaxes(title_text="decoding step", dtick=1, range=[-0.5, max(xs, default=0) + 3])
    # Best on top by a reversed range, not autorange="reversed": that would fit the markers and drop the room
    # kept above the first row for its labels.
    fig.update_yaxes(title_text="hypothesis (best on top)", showticklabels=False, autorange=False,
                     range=[len(hypotheses) - 0.5, -1.3])
    fig = base_layout(fig, title, max(240, 90 + 50 * len(hypotheses)))
    fig.update_layout(hovermode=False)
    return fig
