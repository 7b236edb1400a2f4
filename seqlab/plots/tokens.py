"""Tokens of a text dataset: how often the most frequent ones occur."""

from __future__ import annotations

import plotly.graph_objects as go

from seqlab.plots.style import COLORS, base_layout


def token_frequencies(tokens: list[str], shares: list[float], title: str = "Most frequent tokens") -> go.Figure:
    """Bars of each token's share of the text (in %), most frequent first; whitespace shown as its name."""
    if len(tokens) != len(shares):
        raise ValueError("tokens and shares must have the same length.")
    shown = [repr(t)[1:-1] if t.isspace() or not t.isprintable() else t for t in tokens]  # "\n", not a line break
    fig = go.Figure(go.Bar(x=shown, y=[100 * s for s in shares], marker_color=COLORS["model"], name="share"))
    fig.update_yaxes(title_text="share of the tokens (%)", rangemode="tozero")
    fig.update_xaxes(title_text="token", type="category")
    return base_layout(fig, title, 340)
