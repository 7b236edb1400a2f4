"""Every figure of the dashboard goes through ``show``: projector styling, and its downloads.

``show(fig, key=...)`` draws a plotly figure as ``st.plotly_chart`` does, and
- in projector mode (the sidebar's switch, kept in the URL as ``?projector=true``)
  first makes it readable from the back of a room: larger type, thicker lines and
  the Okabe-Ito colours, which stay distinct for colour-blind eyes, fitted to a
  1024×768 screen (``seqlab.plots.projector``; the page's layout for it is
  ``seqlab.app.projector_style``);
- offers the figure as a stand-alone HTML file (interactive, plotly.js inside, so
  it opens offline) and its data as CSV; the chart's own toolbar saves a PNG.
"""

from __future__ import annotations

import functools

import plotly.graph_objects as go
import streamlit as st

from seqlab.app import projector_style
from seqlab.plots import figure_table, for_projector


def projector_switch() -> None:
    """The sidebar's switch; when on, the page's text grows, its contrast rises and it fits a 1024×768 projector
    (``seqlab.app.projector_style``, applied outside the sidebar: a style inside the collapsed sidebar reached
    the page seconds late, or not at all)."""
    st.toggle(
        "Projector mode", key=projector_style.PROJECTOR_KEY, bind="query-params",
        help="Larger type, thicker lines, colour-blind-safe colours and high contrast, in one column that fits a "
             "1024×768 projector, the sidebar collapsed: for a room.",
    )


def _html(fig: go.Figure) -> str:
    return fig.to_html(include_plotlyjs=True, full_html=True)


def _csv(fig: go.Figure) -> bytes:
    return figure_table(fig).to_csv(index=False).encode()


def show(fig: go.Figure, key: str | None = None, downloads: bool = True, **kwargs):
    """``st.plotly_chart(fig, key=key, **kwargs)`` with projector styling and (``downloads``) the figure's files."""
    if projector_style.projector_on():
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
