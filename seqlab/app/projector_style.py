"""Projector mode's page: type readable from the back of a room, in a layout that fits a 1024×768 projector.

One column (Streamlit's columns stack as on a phone), the sidebar collapsed, and nothing cut off: Streamlit
ellipsises a label or value that does not fit its box ("1 mi…", "T…"); here every label, value, button,
tab, table cell, code line and equation wraps instead. ``seqlab.app.figures`` applies it
with the sidebar's switch; the figures themselves are fitted by ``seqlab.plots.projector``.
"""

from __future__ import annotations

import numbers

import pandas as pd
import streamlit as st

PROJECTOR_KEY = "projector"  # the sidebar's switch (seqlab.app.figures), kept in the URL as ?projector=true
# A run table's columns a room can do without: the run's id and bookkeeping, the extra metrics, the baseline's value
# (its name and the skill over it stay): left out of ``show_table`` in projector mode, so that the table stays
# readable at the projector's type; Models shows a run's details below its table.
DETAIL_COLUMNS = frozenset({"run", "owner", "origin", "status", "epochs", "MAE", "RMSE", "MAPE %", "params", "device",
                            "created", "train s", "family", "best val loss", "same budget as", "best baseline"})

CSS = """
<style>
  .stApp { color: #000; }
  .stApp p, .stApp li, .stApp label, .stApp input, .stApp textarea { font-size: 1.3rem !important; }
  .stApp h1 { font-size: 3.2rem !important; }
  .stApp h2, .stApp h3 { font-size: 2.2rem !important; }
  [data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p { color: #222 !important; }
  [data-testid="stMetricValue"] { font-size: 2.6rem !important; }

  /* One column: columns stack, each the page's full width. */
  [data-testid="stMain"] [data-testid="stHorizontalBlock"] { flex-direction: column !important;
    flex-wrap: nowrap !important; align-items: stretch !important; }
  [data-testid="stMain"] [data-testid="stColumn"] { width: 100% !important; min-width: 100% !important;
    flex: 1 1 auto !important; }
  [data-testid="stMain"] .block-container { padding-left: 2rem !important; padding-right: 2rem !important;
    max-width: 100% !important; }

  /* Nothing ellipsised: labels, values, buttons, links, tabs and selects wrap where they would be cut. */
  [data-testid="stMain"] *, [data-baseweb="popover"] * { text-overflow: clip !important; }
  [data-testid="stMain"] :is([data-testid="stMetric"], button, a, [data-baseweb="select"], [data-baseweb="tab"],
    [data-testid="stWidgetLabel"], [data-testid="stExpander"] summary) :is(div, p, span, label) {
    white-space: normal !important; overflow: visible !important; overflow-wrap: break-word; }
  [data-testid="stMain"] :is(button, a) { height: auto !important; max-width: 100% !important; }
  [data-testid="stMain"] [data-baseweb="tab-list"] { flex-wrap: wrap !important; overflow: visible !important; }
  [data-testid="stMetric"] { overflow: visible !important; }
  /* A select's value sits in an input, which cannot wrap: a run's long label fits at the body's size. */
  [data-testid="stMain"] [data-testid="stSelectbox"] input { font-size: 1rem !important; }
  [data-testid="stMetricValue"] { line-height: 1.15 !important; }

  /* Long outputs and code wrap instead of scrolling sideways. */
  [data-testid="stMain"] :is(pre, code, .stCode) { white-space: pre-wrap !important;
    overflow-wrap: anywhere !important; }
  [data-testid="stMain"] :is(td, th) { white-space: normal !important; overflow-wrap: anywhere; }

  /* An equation wider than the page breaks after a relation or an operator, as inline maths does, rather than
     scroll sideways in its box. */
  [data-testid="stMain"] .katex-display { overflow: visible !important; }
  [data-testid="stMain"] .katex-display > .katex { white-space: normal !important; }
</style>
"""


def projector_on() -> bool:
    return bool(st.session_state.get(PROJECTOR_KEY, False))


def _cell(value, column: dict | None) -> str:
    """A value as the table's ``column_config`` writes it (a number column's printf format), empty when missing."""
    if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)):
        return ""
    number_format = ((column or {}).get("type_config") or {}).get("format")
    if number_format and number_format.startswith("%") and isinstance(value, numbers.Real):
        return number_format % value
    return str(value)


def show_table(data: pd.DataFrame, column_order: list[str], column_config: dict) -> None:
    """A run table: ``st.dataframe`` with its ``column_order`` and ``column_config``; in projector mode an HTML table
    of the columns a room reads (not the ``DETAIL_COLUMNS``) whose cells wrap: a canvas cell cuts a long name at its
    edge, and a table wider than the screen scrolls sideways."""
    if not projector_on():
        st.dataframe(data, hide_index=True, width="stretch", column_order=column_order, column_config=column_config)
        return
    shown = {}
    for name in (c for c in column_order if c in data and c not in DETAIL_COLUMNS):
        column = column_config.get(name)
        label = (column.get("label") if isinstance(column, dict) else None) or name
        shown[label] = [_cell(value, column if isinstance(column, dict) else None) for value in data[name]]
    st.table(pd.DataFrame(shown), hide_index=True)


def apply() -> None:
    """Projector mode on this page: the sidebar starts collapsed and the style above applies."""
    st.set_page_config(initial_sidebar_state="collapsed")
    st.html(CSS)
