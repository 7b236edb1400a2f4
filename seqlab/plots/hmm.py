"""Figures of a hidden Markov model over one token sequence: Viterbi path, posteriors, A and B.

Data in (an ``HMMTrace``'s NumPy arrays), ``go.Figure`` out. The sequence's
tokens label the x axis of the path and the posteriors, so the two line up.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from seqlab.plots.generated import shown_token
from seqlab.plots.inspect import time_ticks
from seqlab.plots.style import COLORS, base_layout

PROBABILITIES = "Blues"  # 0 white -> 1 dark blue
MAX_CELL_TEXT = 12  # more states than this: the values only on hover


def _state_labels(states: int) -> list[str]:
    return [f"state {k}" for k in range(states)]


def _tokens(tokens: Sequence) -> list[str]:
    return [shown_token(str(t)) for t in tokens]


def hmm_path(path: np.ndarray, tokens: Sequence, title: str = "Viterbi state path") -> go.Figure:
    """The most probable hidden state ẑₙ at every token (``path``, ``-1``: a masked step, not drawn)."""
    path = np.asarray(path)
    labels = _tokens(tokens)
    x, xaxis = time_ticks(labels)
    states = np.where(path >= 0, path, np.nan).astype("float64")
    fig = go.Figure(
        go.Scatter(
            x=x, y=states, mode="lines+markers", line=dict(shape="hv", color=COLORS["model"], width=2),
            marker=dict(size=8, color=COLORS["model"]), customdata=labels, showlegend=False,
            hovertemplate="token %{x}: %{customdata}<br>state %{y}<extra></extra>",
        )
    )
    top = int(np.nanmax(states, initial=0))
    fig.update_yaxes(title_text="hidden state ẑₙ", tickmode="array", tickvals=list(range(top + 1)),
                     range=[-0.5, top + 0.5])
    fig.update_xaxes(title_text="token xₙ of the sequence", **xaxis)
    fig = base_layout(fig, title, 260 + 12 * min(top, 20))
    fig.update_layout(hovermode="closest")
    return fig


def hmm_posteriors(gamma: np.ndarray, tokens: Sequence, path: np.ndarray | None = None,
                   title: str = "Posterior state probabilities γₙ(k) = p(zₙ = k | x)") -> go.Figure:
    """``gamma`` ``(K, T)`` as a heatmap (state on y, token on x), with the Viterbi path as dots."""
    gamma = np.asarray(gamma, dtype="float64")
    labels = _tokens(tokens)
    x, xaxis = time_ticks(labels)
    states = gamma.shape[0]
    fig = go.Figure(
        go.Heatmap(
            z=gamma, x=x, y=list(range(states)), zmin=0.0, zmax=1.0, colorscale=PROBABILITIES,
            customdata=np.tile(np.asarray(labels, dtype=object), (states, 1)),
            colorbar=dict(title=dict(text="γₙ(k)", side="right"), thickness=14),
            hovertemplate="token %{x}: %{customdata}<br>state %{y}: p = %{z:.3f}<extra></extra>",
        )
    )
    if path is not None:
        path = np.asarray(path)
        keep = path >= 0
        fig.add_trace(
            go.Scatter(x=x[keep], y=path[keep], mode="markers", name="Viterbi path ẑₙ",
                       marker=dict(symbol="circle-open", size=9, color=COLORS["model"], line=dict(width=2)),
                       hovertemplate="Viterbi: state %{y}<extra></extra>")
        )
    fig.update_yaxes(title_text="hidden state k", tickmode="array", tickvals=list(range(states)),
                     autorange="reversed", showticklabels=states <= 40)
    fig.update_xaxes(title_text="token xₙ of the sequence", **xaxis)
    fig = base_layout(fig, title, 160 + 22 * min(max(states, 6), 40))
    fig.update_layout(hovermode="closest", margin=dict(l=60, r=20, t=50, b=70))
    return fig


def _matrix(z: np.ndarray, x: list, y: list, hover: str, title: str, x_title: str, y_title: str,
            colorbar: str, height: int) -> go.Figure:
    z = np.asarray(z, dtype="float64")
    small = max(z.shape) <= MAX_CELL_TEXT
    fig = go.Figure(
        go.Heatmap(
            z=z, x=x, y=y, zmin=0.0, zmax=max(float(z.max(initial=0.0)), 1e-12), colorscale=PROBABILITIES,
            text=np.round(z, 2) if small else None, texttemplate="%{text}" if small else None,
            colorbar=dict(title=dict(text=colorbar, side="right"), thickness=14), hovertemplate=hover,
        )
    )
    # Every label, upright: a category axis would skip every other token.
    fig.update_yaxes(title_text=y_title, autorange="reversed", type="category", tickmode="array", tickvals=y)
    fig.update_xaxes(title_text=x_title, type="category", tickmode="array", tickvals=x, tickangle=0)
    fig = base_layout(fig, title, height)
    fig.update_layout(hovermode="closest")
    return fig


def transition_matrix(A: np.ndarray, title: str = "Transition matrix A") -> go.Figure:
    """``A`` ``(K, K)``: row j = from state j, column k = to state k, each row summing to 1."""
    states = _state_labels(np.asarray(A).shape[0])
    return _matrix(A, states, states, "from %{y} to %{x}: A = %{z:.3f}<extra></extra>", title,
                   "to state k (zₙ)", "from state j (zₙ₋₁)", "A<sub>jk</sub>", 200 + 24 * min(len(states), 30))


def emission_matrix(B: np.ndarray, tokens: Sequence, vocab_size: int | None = None,
                    title: str = "Emission matrix B") -> go.Figure:
    """``B`` ``(K, k)`` for ``k`` shown tokens (a column each); ``vocab_size``: how many tokens there are."""
    B = np.asarray(B)
    labels = _tokens(tokens)
    shown = f" ({len(labels)} of {vocab_size} tokens)" if vocab_size and vocab_size > len(labels) else ""
    fig = _matrix(B, labels, _state_labels(B.shape[0]), "%{y} emits %{x}: B = %{z:.3f}<extra></extra>", title,
                  f"token v{shown}", "state k", "B<sub>kv</sub>", 200 + 24 * min(B.shape[0], 30))
    fig.update_traces(texttemplate=None, text=None)  # B's probabilities are small: values on hover
    return fig
