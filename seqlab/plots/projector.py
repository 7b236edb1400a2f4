"""A figure for a projector: larger type, thicker lines, colours that colour-blind eyes tell apart."""

from __future__ import annotations

import plotly.graph_objects as go

# The palette of seqlab.plots.style mapped to Okabe & Ito's colour-blind-safe one (Wong, Nature Methods 2011).
OKABE_ITO = {
    "#1f77b4": "#0072B2",  # blue
    "#ff7f0e": "#E69F00",  # orange
    "#2ca02c": "#009E73",  # bluish green
    "#d62728": "#D55E00",  # vermillion
    "#9467bd": "#CC79A7",  # reddish purple
    "#17becf": "#56B4E9",  # sky blue
    "#8c564b": "#332288",  # indigo (Tol): Okabe-Ito's yellow vanishes on white
    "#5b6770": "#000000",
    "#111111": "#000000",
}


def _projected(color):
    return OKABE_ITO.get(color.lower(), color) if isinstance(color, str) else color


def for_projector(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` readable on a projector: larger fonts, thicker lines, Okabe-Ito colours."""
    fig = go.Figure(fig)
    fig.update_layout(
        font=dict(size=20), title_font=dict(size=24), legend_font=dict(size=18),
        colorway=list(dict.fromkeys(OKABE_ITO.values())),
        height=int((fig.layout.height or 450) * 1.2),
    )
    fig.update_xaxes(tickfont=dict(size=18), title_font=dict(size=20))
    fig.update_yaxes(tickfont=dict(size=18), title_font=dict(size=20))
    for trace in fig.data:
        line, marker = getattr(trace, "line", None), getattr(trace, "marker", None)
        if line is not None and "color" in line:
            line.color = _projected(line.color)
            line.width = max(line.width or 2, 3)
        if marker is not None and "color" in marker:
            marker.color = _projected(marker.color)
    return fig
