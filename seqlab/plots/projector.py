"""A figure for a projector: larger type, thicker lines, colours that colour-blind eyes tell apart, and a layout
that fits the page of a 1024×768 projector (titles wrapped, the legend below the plot, token axes legible)."""

from __future__ import annotations

import math
import re
import textwrap

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
FONT, TITLE_FONT, LEGEND_FONT, TICK_FONT = 20, 24, 18, 18
# The figure's width on a 1024-px projector in projector mode: one column, the sidebar collapsed, the page's margins.
WIDTH = 900
MAX_HEIGHT = 1400  # px: a figure taller than this no longer fits a projector's screen twice
MARGINS = 160  # px: the plot area is the figure less about this much for titles, ticks and legend
CHAR = 0.6  # a character's width in em, a little over the average: an estimate that errs towards wrapping
NUMBERED = re.compile(r"^(\d+): (.*)$", re.S)  # a token axis' label "3: i": numbered so repeated tokens stay apart


def _projected(color):
    return OKABE_ITO.get(color.lower(), color) if isinstance(color, str) else color


def wrap(text: str, size: int, width: float) -> str:
    """``text`` broken with ``<br>`` into lines of at most ``width`` pixels at font ``size``."""
    per_line = max(8, int(width / (size * CHAR)))
    return "<br>".join(textwrap.wrap(text, per_line, break_long_words=False)) if len(text) > per_line else text


def _lines(text: str) -> int:
    return text.count("<br>") + 1


def _wrap_titles(fig: go.Figure) -> tuple[int, int]:
    """The title and the subplots' titles wrapped to their width; the title's extra lines, and the lines of the top
    row's subplot titles (drawn above the plot, under the title)."""
    title = fig.layout.title.text
    extra = 0
    if title:
        fig.layout.title.text = wrap(title, TITLE_FONT, WIDTH)
        extra = _lines(fig.layout.title.text) - _lines(title)
    columns = {tuple(axis.domain) for axis in fig.select_xaxes() if axis.domain is not None} or {(0.0, 1.0)}
    panel = WIDTH * min(high - low for low, high in columns)
    above = 0
    for note in fig.layout.annotations:  # make_subplots' titles, and any note written on the figure
        if note.text and note.xref in (None, "paper") and not note.showarrow:
            note.text = wrap(note.text, FONT, panel)
            if note.yanchor == "bottom" and (note.y or 0) >= 0.99:
                above = max(above, _lines(note.text))
    return extra, above


def _legend_rows(fig: go.Figure) -> int:
    """Rows of the horizontal legend under the plot at ``WIDTH``: each entry its text plus the symbol."""
    widths = [len(str(t.name)) * LEGEND_FONT * CHAR + 50 for t in fig.data if t.name and t.showlegend is not False]
    if not widths or fig.layout.showlegend is False:
        return 0
    rows, used = 1, 0.0
    for width in widths:
        if used and used + width > WIDTH:
            rows, used = rows + 1, 0.0
        used += width
    return rows


def _token_ticks(axis, labels: list[str], length: float, across: bool) -> None:
    """A token axis' ticks: the token alone (not "3: i"), every ``step``-th one so that none overlap."""
    tokens = [match.group(2) if (match := NUMBERED.match(label)) else label for label in labels]
    if across:  # side by side: a label takes its text's width, upright; rotated once a character's width is less
        longest = max(len(t) for t in tokens) * TICK_FONT * CHAR + 8
        upright = longest <= length / len(tokens)
        need = longest if upright else TICK_FONT * 1.4
        axis.tickangle = 0 if upright else -90
    else:  # one above the other: a line each
        need = TICK_FONT * 1.4
    step = max(1, math.ceil(len(tokens) * need / max(length, 1.0)))
    axis.update(tickmode="array", tickvals=labels[::step], ticktext=tokens[::step])


def _token_axes(fig: go.Figure) -> list[tuple[object, list[str], tuple[float, float], bool]]:
    """Every category axis whose labels are numbered tokens (a heatmap's, an attention map's), and every row axis of
    text labels (a heatmap's "unit 5"): the axis, its labels, its domain and whether it runs across."""
    found = []
    for trace in fig.data:
        for letter, across in (("x", True), ("y", False)):
            labels = getattr(trace, letter, None)
            if labels is None or not len(labels) or not all(
                isinstance(v, str) and (NUMBERED.match(v) or not across) for v in labels
            ):
                continue
            axis = fig.layout[(getattr(trace, f"{letter}axis", None) or letter).replace(letter, f"{letter}axis", 1)]
            if axis is not None and axis.tickmode != "array" and all(axis is not a for a, *_ in found):
                found.append((axis, list(labels), tuple(axis.domain or (0.0, 1.0)), across))
    return found


def _fit_token_axes(fig: go.Figure, height: int) -> int:
    """Legible token axes: the figure grows (up to ``MAX_HEIGHT``) until each row's token has a line, and ticks
    are thinned where it cannot; the new height."""
    axes = _token_axes(fig)
    for _, labels, (low, high), across in axes:
        if not across:
            height = max(height, min(MAX_HEIGHT, math.ceil(MARGINS + len(labels) * TICK_FONT * 1.4 / (high - low))))
    for axis, labels, (low, high), across in axes:
        _token_ticks(axis, labels, (high - low) * (WIDTH - MARGINS if across else height - MARGINS), across)
    return height


def _wrap_category_labels(fig: go.Figure) -> None:
    """Category labels across (a bar per run, "Linear ARX (least squares) · known_future=True") wrapped to the
    width of their slot, upright, rather than running into each other."""
    for trace in fig.data:
        labels = getattr(trace, "x", None)
        if labels is None or not len(labels) or not all(isinstance(v, str) for v in labels):
            continue
        axis = fig.layout[(getattr(trace, "xaxis", None) or "x").replace("x", "xaxis", 1)]
        if axis is None or axis.tickmode == "array" or any(NUMBERED.match(v) for v in labels):
            continue
        names = list(dict.fromkeys(labels))
        low, high = axis.domain or (0.0, 1.0)
        slot = (high - low) * (WIDTH - MARGINS) / len(names)
        if max(len(n) for n in names) * TICK_FONT * CHAR > slot:
            axis.update(tickmode="array", tickvals=names, ticktext=[wrap(n, TICK_FONT, slot) for n in names],
                        tickangle=0)


def _room_for_side_labels(fig: go.Figure) -> None:
    """Labels written right of their points (a beam's scores at its leaves) at the projector's font: the x axis'
    fixed range reaches far enough right for the longest to be drawn whole."""
    for trace in fig.data:
        if trace.type != "scatter" or "text" not in (trace.mode or "") or trace.textposition != "middle right":
            continue
        axis = fig.layout[(trace.xaxis or "x").replace("x", "xaxis", 1)]
        points = [(x, str(t)) for x, t in zip(trace.x or (), trace.text or ()) if x is not None]
        if axis is None or axis.range is None or not points:
            continue
        left, right = axis.range
        plot = WIDTH - MARGINS
        for x, text in points:
            label = len(text) * FONT * CHAR + 10
            if label < plot and (right - x) / (right - left) * plot < label:  # solve for the right end that fits
                right = (x * plot - label * left) / (plot - label)
        axis.range = (left, right)


def _fewer_ticks_on_short_axes(fig: go.Figure, height: int) -> None:
    """A numeric y axis left to place its own ticks, on a short panel (a subplot under the main one): no more
    ticks than the projector's labels have lines for."""
    for axis in fig.select_yaxes():
        if axis.tickvals is not None or axis.type in ("category", "multicategory"):
            continue
        low, high = axis.domain or (0.0, 1.0)
        most = max(2, int((high - low) * (height - MARGINS) / (TICK_FONT * 2)))
        axis.nticks = min(axis.nticks or most, most)


def _position(value: float, log: bool) -> float:
    return math.log10(value) if log else value


def _thin_numeric_ticks(fig: go.Figure, height: int) -> None:
    """Ticks placed by hand (a log axis' 1-2-5 labels, a bar's value) that would run into each other at the
    projector's font size: every label closer than a line to the last one kept is left out."""
    for axis in (*fig.select_xaxes(), *fig.select_yaxes()):
        values = axis.tickvals
        if values is None or len(values) < 2 or not all(isinstance(v, (int, float)) for v in values):
            continue
        log, across = axis.type == "log", axis.plotly_name.startswith("xaxis")
        if log and min(values) <= 0:
            continue
        spots = [_position(v, log) for v in values]
        low, high = (axis.range if axis.range is not None else (min(spots), max(spots)))
        low_domain, high_domain = axis.domain or (0.0, 1.0)
        pixels = (high_domain - low_domain) * ((WIDTH if across else height) - MARGINS) / max(abs(high - low), 1e-12)
        texts = list(axis.ticktext) if axis.ticktext is not None else [f"{v:g}" for v in values]
        need = TICK_FONT * 1.4 if not across else TICK_FONT * CHAR * max(len(str(t)) for t in texts) + 10
        kept, last = [], None
        for spot, value, text in sorted(zip(spots, values, texts)):
            if last is None or abs(spot - last) * pixels >= need:
                kept.append((value, text))
                last = spot
        axis.update(tickvals=[v for v, _ in kept], ticktext=[t for _, t in kept])


def for_projector(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` readable on a projector: larger fonts, thicker lines, Okabe-Ito colours; titles wrapped to
    the width of a 1024-px screen, the legend below the plot, token axes showing the tokens only, never overlapping."""
    fig = go.Figure(fig)
    extra_title_lines, above = _wrap_titles(fig)
    legend_rows = _legend_rows(fig)
    height = (int((fig.layout.height or 450) * 1.2) + 30 * extra_title_lines + 26 * above
              + 28 * max(0, legend_rows - 1))
    margin, title_lines = fig.layout.margin, _lines(fig.layout.title.text or "")
    fig.update_layout(
        font=dict(size=FONT), title_font=dict(size=TITLE_FONT), colorway=list(dict.fromkeys(OKABE_ITO.values())),
        height=height,
        # Below the plot, its rows counted into the height: never beside the plot, where it outgrows it.
        legend=dict(font=dict(size=LEGEND_FONT), orientation="h", yref="container", y=0.0, yanchor="bottom",
                    x=0.0, xanchor="left"),
        # From the figure's top edge down, in a top margin of its lines. Plotly draws a title of several lines
        # about 20 px higher than the pad says: the pad makes up for it.
        title=dict(yref="container", y=1.0, yanchor="top", pad=dict(t=12 if title_lines == 1 else 30)),
        margin=dict(t=max(margin.t or 50, int(28 + TITLE_FONT * 1.3 * title_lines + FONT * 1.3 * above)),
                    b=(margin.b or 40) + 30 * legend_rows),
    )
    fig.update_xaxes(tickfont=dict(size=TICK_FONT), title_font=dict(size=FONT), automargin=True)
    fig.update_yaxes(tickfont=dict(size=TICK_FONT), title_font=dict(size=FONT), automargin=True)
    fig.layout.height = _fit_token_axes(fig, height)
    _thin_numeric_ticks(fig, fig.layout.height)
    _wrap_category_labels(fig)
    _room_for_side_labels(fig)
    _fewer_ticks_on_short_axes(fig, fig.layout.height)
    for trace in fig.data:
        line, marker = getattr(trace, "line", None), getattr(trace, "marker", None)
        if line is not None and "color" in line:
            line.color = _projected(line.color)
            line.width = max(line.width or 2, 3)
        if marker is not None and "color" in marker:
            marker.color = _projected(marker.color)
    return fig
