"""Every figure of the dashboard goes through ``show``: projector styling, and its downloads.

``show(fig, key=...)`` draws a plotly figure as ``st.plotly_chart`` does, and
- in projector mode (the sidebar's switch, kept in the URL as ``?projector=true``)
  first makes it readable from the back of a room: larger type, thicker lines and
  the Okabe-Ito colours, which stay distinct for colour-blind eyes;
- offers the figure as a stand-alone HTML file (interactive, plotly.js inside, so
  it opens offline) and its data as CSV; the chart's own toolbar saves a PNG.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

PROJECTOR_KEY = "projector"

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
PROJECTOR_CSS = """
<style>
  .stApp { color: #000; }
  .stApp p, .stApp li, .stApp label, .stApp input, .stApp textarea { font-size: 1.3rem !important; }
  .stApp h1 { font-size: 3.2rem !important; }
  .stApp h2, .stApp h3 { font-size: 2.2rem !important; }
  [data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p { color: #222 !important; }
  [data-testid="stMetricValue"] { font-size: 2.6rem !important; }
</style>
"""


def projector_on() -> bool:
    return bool(st.session_state.get(PROJECTOR_KEY, False))


def projector_switch() -> None:
    """The sidebar's switch; when on, the page's text grows and its contrast rises."""
    st.toggle(
        "Projector mode", key=PROJECTOR_KEY, bind="query-params",
        help="Larger type, thicker lines, colour-blind-safe colours and high contrast, for a room.",
    )
    if projector_on():
        st.html(PROJECTOR_CSS)


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


def figure_table(fig: go.Figure) -> pd.DataFrame:
    """The numbers a figure draws, long form: one row per point (``trace, x, y``) or cell (``trace, x, y, z``)."""
    frames = []
    for i, trace in enumerate(fig.data):
        name = trace.name or f"trace {i + 1}"
        z = getattr(trace, "z", None)
        if z is not None:  # a heatmap: every cell with its row and column labels
            z = np.asarray(z)
            if z.ndim != 2:
                continue
            xs = list(trace.x) if trace.x is not None else list(range(z.shape[1]))
            ys = list(trace.y) if trace.y is not None else list(range(z.shape[0]))
            rows, cols = np.indices(z.shape)
            frames.append(pd.DataFrame({"trace": name, "x": np.asarray(xs, dtype=object)[cols.ravel()],
                                        "y": np.asarray(ys, dtype=object)[rows.ravel()], "z": z.ravel()}))
            continue
        x, y = getattr(trace, "x", None), getattr(trace, "y", None)
        if x is None and y is None:
            continue
        n = len(y) if y is not None else len(x)
        frames.append(pd.DataFrame({"trace": name, "x": list(x) if x is not None else list(range(n)),
                                    "y": list(y) if y is not None else [None] * n}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["trace", "x", "y"])


def _html(fig: go.Figure) -> str:
    return fig.to_html(include_plotlyjs=True, full_html=True)


def _csv(fig: go.Figure) -> bytes:
    return figure_table(fig).to_csv(index=False).encode()


def show(fig: go.Figure, key: str | None = None, downloads: bool = True, **kwargs):
    """``st.plotly_chart(fig, key=key, **kwargs)`` with projector styling and (``downloads``) the figure's files."""
    if projector_on():
        fig = for_projector(fig)
    name = (key or "figure").replace(".", "_")
    config = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2, "filename": name}}
    shown = st.plotly_chart(fig, key=key, config=config, **kwargs)
    if not downloads:
        return shown
    with st.popover("Download", icon=":material/download:"):
        st.caption("PNG: the camera in the chart's toolbar.")
        st.download_button(
            "Figure (HTML, interactive)", data=functools.partial(_html, fig), file_name=f"{name}.html",
            mime="text/html", on_click="ignore", key=f"{key}.html" if key else None,
        )
        st.download_button(
            "Data (CSV)", data=functools.partial(_csv, fig), file_name=f"{name}.csv", mime="text/csv",
            on_click="ignore", key=f"{key}.csv" if key else None,
        )
    return shown
