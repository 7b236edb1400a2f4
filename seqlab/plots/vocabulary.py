"""Vocabulary size against what it costs: held-out unknown tokens (OOV rate) and sequence length.

Input: the table of ``seqlab.text.statistics.vocabulary_sweep`` (one row per
tokeniser and vocabulary size). The character tokeniser has one size, drawn as a
single marker; word and BPE are lines over their sizes, on a log axis.
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go

from seqlab.plots.style import COLORS, base_layout

TOKENIZER_STYLE = {  # kind -> (legend name, colour)
    "char": ("characters", COLORS["seasonal"]),
    "word": ("words", COLORS["train"]),
    "bpe": ("BPE sub-words", COLORS["model"]),
}
# column -> (axis title with unit, factor from the column to the axis, hover format, figure title)
MEASURES = {
    "oov_rate": ("held-out tokens unknown, [UNK] (%)", 100.0, ".2f",
                 "Unknown tokens on the held-out text, by vocabulary size"),
    "tokens_per_line": ("tokens per line (tokens)", 1.0, ".1f",
                        "Mean sequence length on the held-out text, by vocabulary size"),
    "tokens_per_100_characters": ("tokens per 100 characters (tokens)", 1.0, ".1f",
                                  "Tokens per 100 characters of held-out text, by vocabulary size"),
}


def vocabulary_sweep_chart(sweep: pd.DataFrame, measure: str, marked: int | None = None) -> go.Figure:
    """One line per tokeniser of ``measure`` (a column of ``MEASURES``) against the vocabulary size.

    Args:
        sweep: ``vocabulary_sweep``'s table.
        measure: ``"oov_rate"`` (drawn in %), ``"tokens_per_line"`` or ``"tokens_per_100_characters"``.
        marked: a vocabulary size to mark with a dotted vertical line (the dataset's own).
    """
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {sorted(MEASURES)}, got {measure!r}.")
    y_title, factor, fmt, title = MEASURES[measure]
    fig = go.Figure()
    # Lines first, single sizes (characters) on top: BPE starts at the character vocabulary's size.
    groups = sorted(sweep.groupby("tokenizer", sort=False), key=lambda group: len(group[1]) == 1)
    for kind, rows in groups:
        name, colour = TOKENIZER_STYLE.get(kind, (kind, COLORS["baseline"]))
        single = len(rows) == 1
        fig.add_trace(go.Scatter(
            x=rows["vocab_size"].tolist(), y=(rows[measure] * factor).tolist(), name=name,
            mode="markers" if single else "lines+markers", line=dict(color=colour, width=2),
            marker=dict(color=colour, size=12 if single else 6, symbol="diamond" if single else "circle"),
            hovertemplate=f"{name}: %{{y:{fmt}}} at %{{x:,}} tokens<extra></extra>",
        ))  # fmt: skip
    if marked is not None:
        fig.add_vline(x=marked, line=dict(color=COLORS["baseline"], dash="dot", width=1.5))
        # On a log axis an annotation's x is log10 of the value (a shape's is the value itself).
        fig.add_annotation(x=math.log10(marked), y=1, yref="paper", xanchor="left", yanchor="top", showarrow=False,
                           text=f" this dataset: {marked:,}", font=dict(color=COLORS["history"]))  # fmt: skip
    ticks = _one_two_five(sweep["vocab_size"].min(), sweep["vocab_size"].max())
    fig.update_xaxes(title_text="vocabulary size (tokens, log scale)", type="log",
                     tickvals=ticks, ticktext=[f"{t:,}" for t in ticks])  # fmt: skip
    fig.update_yaxes(title_text=y_title, rangemode="tozero")
    fig = base_layout(fig, title, 360)
    fig.update_layout(hovermode="closest")  # sizes differ between lines: one point at a time
    return fig


def _one_two_five(low: int, high: int) -> list[int]:
    """1, 2, 5, 10, 20, ... from the step at or below ``low`` to the one at or above ``high`` (log-axis ticks)."""
    ticks, step = [], 1
    while not ticks or ticks[-1] < high:
        ticks += [m * step for m in (1, 2, 5)]
        step *= 10
    below = max([t for t in ticks if t <= low], default=ticks[0])
    above = min(t for t in ticks if t >= high)
    return [t for t in ticks if below <= t <= above]
