r"""A Transformer's attention, head by head: heatmaps of $a_{ij}$ with the tokens on both axes, and the scores.

One row per query token $i$, one column per key token $j$: row $i$ is the
distribution $a_{ij}$ the query read the keys with (it sums to 1). The
figures are meant for a projector: large tick labels, titled axes
("query token", "key token") and a colour bar saying what the colour is.

``score_walkthrough`` is the notes' step by step (seed 001, "Hello how are"):
the scaled score matrix $a'_{ij} = q_i^T k_j / \sqrt{d_k}$ with the mask
applied ($-\infty$, drawn grey) beside its softmax (0 there).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from seqlab.plots.generated import shown_token
from seqlab.plots.style import base_layout

WEIGHTS = "Blues"  # 0 white -> 1 dark blue, as the translation attention map
SCORES = "RdBu_r"  # a' around 0: negative blue, positive red
MASKED = "#b8bec4"  # grey: a cell the mask forbids
TICK_SIZE = 16  # readable at a projector
WEIGHT_TITLE = "attention weight a_ij"
QUERY_TITLE, KEY_TITLE = "query token", "key token"
GRID_COLUMNS = 4
MINUS_INF = "−∞"


def token_axis(labels: Sequence) -> list[str]:
    """Tick labels ``1: Hello``: numbered, so a repeated token stays its own row or column."""
    return [f"{k}: {shown_token(str(t))}" for k, t in enumerate(labels, start=1)]


def _height(queries: int, per_row: int = 34, least: int = 360) -> int:
    return max(least, 120 + per_row * queries)


def _weights_heatmap(weights: np.ndarray, x: list[str], y: list[str], show_scale: bool = True) -> go.Heatmap:
    return go.Heatmap(
        z=np.asarray(weights, dtype="float64"), x=x, y=y, zmin=0.0, zmax=1.0, colorscale=WEIGHTS,
        showscale=show_scale, colorbar=dict(title=dict(text=WEIGHT_TITLE, side="right"), tickfont=dict(size=14)),
        hovertemplate="query %{y}<br>key %{x}<br>a_ij = %{z:.3f}<extra></extra>", xgap=1, ygap=1,
    )  # fmt: skip


def head_heatmap(weights: np.ndarray, query_labels: Sequence, key_labels: Sequence | None = None,
                 title: str = "Attention weights a_ij") -> go.Figure:
    """One head's (or the average's) weights ``(T_q, T_k)``: query tokens down, key tokens across."""
    weights = np.asarray(weights, dtype="float64")
    _check(weights, 2, "weights", "(T_q, T_k)")
    y = token_axis(query_labels)
    x = token_axis(query_labels if key_labels is None else key_labels)
    _check_labels(weights.shape, len(y), len(x))
    fig = go.Figure(_weights_heatmap(weights, x, y))
    fig.update_xaxes(title_text=KEY_TITLE, tickangle=-45 if len(x) > 10 else 0)
    fig.update_yaxes(title_text=QUERY_TITLE)
    _axes_style(fig)
    fig = base_layout(fig, title, _height(len(y)))
    fig.update_layout(hovermode="closest")
    return fig


def heads_grid(weights: np.ndarray, query_labels: Sequence, key_labels: Sequence | None = None,
               title: str = "Every head", columns: int = GRID_COLUMNS) -> go.Figure:
    """Every head's weights ``(h, T_q, T_k)`` side by side, one panel per head, on one colour scale."""
    weights = np.asarray(weights, dtype="float64")
    _check(weights, 3, "weights", "(h, T_q, T_k)")
    heads = weights.shape[0]
    y = token_axis(query_labels)
    x = token_axis(query_labels if key_labels is None else key_labels)
    _check_labels(weights.shape[1:], len(y), len(x))
    columns = max(1, min(columns, heads))
    rows = math.ceil(heads / columns)
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=[f"head {k}" for k in range(1, heads + 1)],
                        horizontal_spacing=0.06, vertical_spacing=0.12 if rows > 1 else 0.08)
    for k in range(heads):
        fig.add_trace(_weights_heatmap(weights[k], x, y, show_scale=k == 0), row=k // columns + 1,
                      col=k % columns + 1)
    _axes_style(fig)
    fig.update_yaxes(showticklabels=False)
    fig.update_yaxes(showticklabels=True, title_text=QUERY_TITLE, col=1)
    fig.update_xaxes(title_text=KEY_TITLE, row=rows)
    # A panel is a quarter of the width: slant the key labels once they would run into each other.
    fig.update_xaxes(tickangle=-45 if sum(len(str(label)) for label in x) > 30 else 0)
    fig = base_layout(fig, title, rows * _height(len(y), per_row=26, least=300))
    fig.update_layout(hovermode="closest")
    return fig


def score_walkthrough(scores: np.ndarray, query_labels: Sequence, key_labels: Sequence | None = None,
                      title: str = "Scaled scores a'_ij, masked, and their softmax a_ij",
                      stacked: bool = False) -> go.Figure:
    r"""The notes' walk-through: $a'_{ij}$ ``(T_q, T_k)`` (``-inf`` where masked) beside $\mathrm{softmax}_j$
    (``stacked``: above it, each panel the figure's full width, as a projector needs to read the numbers).

    Every cell carries its number; masked cells are grey with "−∞" on the first and 0 on the second.
    """
    scores = np.asarray(scores, dtype="float64")
    _check(scores, 2, "scores", "(T_q, T_k)")
    y = token_axis(query_labels)
    x = token_axis(query_labels if key_labels is None else key_labels)
    _check_labels(scores.shape, len(y), len(x))
    masked = np.isneginf(scores)
    weights = softmax_rows(scores)
    shown = np.where(masked, np.nan, scores)  # a masked score has no colour: the grey beneath shows
    bound = float(np.nanmax(np.abs(shown))) if np.isfinite(shown).any() else 1.0
    rows, cols = (2, 1) if stacked else (1, 2)
    fig = make_subplots(rows=rows, cols=cols, horizontal_spacing=0.26, vertical_spacing=0.14, subplot_titles=(
        "1. scaled scores a'_ij = q_iᵀk_j / √d_k (mask: −∞)", "2. softmax over each row: a_ij"))
    # Each panel's colour bar beside it: right of the first panel, or beside each row when stacked.
    first_bar, second_bar = ((dict(x=1.0, y=0.79, len=0.42), dict(x=1.0, y=0.21, len=0.42)) if stacked
                             else (dict(x=0.38, len=0.9), dict(x=1.0, len=0.9)))
    grey = np.where(masked, 1.0, np.nan)
    panels = [(1, 1), (2, 1)] if stacked else [(1, 1), (1, 2)]
    for row, col in panels:  # the masked cells, beneath the values
        fig.add_trace(go.Heatmap(z=grey, x=x, y=y, colorscale=[[0, MASKED], [1, MASKED]], showscale=False,
                                 hoverinfo="skip", xgap=1, ygap=1), row=row, col=col)
    fig.add_trace(go.Heatmap(
        z=shown, x=x, y=y, zmid=0.0, zmin=-bound, zmax=bound, colorscale=SCORES, xgap=1, ygap=1,
        text=[[MINUS_INF if m else f"{v:.2f}" for v, m in zip(row, mrow)] for row, mrow in zip(scores, masked)],
        texttemplate="%{text}", textfont=dict(size=TICK_SIZE),
        colorbar=dict(title=dict(text="score a'_ij", side="right"), **first_bar),
        hovertemplate="query %{y}<br>key %{x}<br>a'_ij = %{text}<extra></extra>",
    ), row=1, col=1)  # fmt: skip
    fig.add_trace(go.Heatmap(
        z=np.where(masked, np.nan, weights), x=x, y=y, zmin=0.0, zmax=1.0, colorscale=WEIGHTS, xgap=1, ygap=1,
        text=[[f"{v:.2f}" for v in row] for row in weights], texttemplate="%{text}", textfont=dict(size=TICK_SIZE),
        colorbar=dict(title=dict(text=WEIGHT_TITLE, side="right"), **second_bar),
        hovertemplate="query %{y}<br>key %{x}<br>a_ij = %{text}<extra></extra>",
    ), row=panels[1][0], col=panels[1][1])  # fmt: skip
    if masked.any():  # the legend says what grey is
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="masked: −∞ before, 0 after the softmax",
                                 marker=dict(symbol="square", size=14, color=MASKED), showlegend=True))
    _axes_style(fig)
    fig.update_xaxes(title_text=KEY_TITLE)
    fig.update_yaxes(title_text=QUERY_TITLE, col=1)
    fig = base_layout(fig, title, rows * _height(len(y), least=380) + 40)
    fig.update_layout(hovermode="closest")
    return fig


def softmax_rows(scores: np.ndarray) -> np.ndarray:
    """The softmax of each row over its finite entries; a masked (``-inf``) entry gets exactly 0."""
    scores = np.asarray(scores, dtype="float64")
    finite = np.isfinite(scores)
    top = np.max(np.where(finite, scores, -np.inf), axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    exps = np.where(finite, np.exp(np.where(finite, scores, 0.0) - top), 0.0)
    total = exps.sum(axis=-1, keepdims=True)
    return exps / np.where(total > 0, total, 1.0)


def _axes_style(fig: go.Figure) -> None:
    fig.update_xaxes(type="category", tickfont=dict(size=TICK_SIZE), title_font=dict(size=TICK_SIZE + 2))
    fig.update_yaxes(type="category", tickfont=dict(size=TICK_SIZE), title_font=dict(size=TICK_SIZE + 2),
                     autorange="reversed")  # the first query on top, as in the notes' tables


def _check(array: np.ndarray, ndim: int, name: str, shape: str) -> None:
    if array.ndim != ndim:
        raise ValueError(f"{name} must have shape {shape}, got {array.shape}.")


def _check_labels(shape: tuple, queries: int, keys: int) -> None:
    if tuple(shape) != (queries, keys):
        raise ValueError(f"{queries} query and {keys} key labels for a matrix of shape {tuple(shape)}: "
                         "pass one label per query row and per key column.")
