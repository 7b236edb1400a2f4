"""The guesses for one blank as a bar chart: the most probable tokens and their probabilities."""

from __future__ import annotations

from typing import TYPE_CHECKING

import plotly.graph_objects as go

if TYPE_CHECKING:
    from seqlab.tasks.masked_lm.fill_in import Blank


def blank_guesses(blank: Blank, title: str) -> go.Figure:
    """Horizontal bars, the most probable token on top, probabilities in %."""
    percent = [100 * p for p in blank.probabilities]
    figure = go.Figure(go.Bar(
        x=percent, y=list(blank.tokens), orientation="h", text=[f"{p:.1f} %" for p in percent],
        textposition="auto", hovertemplate="%{y}: %{x:.2f} %<extra></extra>", name="probability",
    ))  # fmt: skip
    figure.update_layout(
        title=title, xaxis_title="probability (%)", yaxis_title="token", yaxis_autorange="reversed",
        height=120 + 30 * len(blank.tokens), margin={"l": 10, "r": 10, "t": 50, "b": 40},
    )
    return figure
