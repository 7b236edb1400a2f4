"""A figure fitted to a 1024×768 projector (seqlab.plots.projector): titles wrapped, legend below, axes legible."""

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from seqlab.plots import for_projector
from seqlab.plots.attention import attention_map, beam_tree
from seqlab.plots.heads import heads_grid, score_walkthrough
from seqlab.plots.projector import TICK_FONT, WIDTH, wrap
from seqlab.plots.runs import runs_comparison
from seqlab.plots.style import base_layout


def test_a_character_axis_shows_the_characters_alone_and_every_row_gets_a_line():
    source, written = list("two hundred and forty-six"), list("zweihundertsechsundvierzig") + ["[EOS]"]
    fig = for_projector(attention_map(np.full((len(written), len(source)), 0.5), source, written))
    across, down = fig.layout.xaxis, fig.layout.yaxis
    assert list(across.ticktext) == [t if t != " " else "␣" for t in source]  # "t", not "1: t"
    assert list(across.tickvals) == [f"{k}: {t if t != ' ' else '␣'}" for k, t in enumerate(source, start=1)]
    assert across.tickangle == 0
    assert list(down.ticktext) == written  # the figure grew: every target character has its line
    assert fig.layout.height >= 160 + len(written) * TICK_FONT * 1.4


def test_a_long_token_axis_is_thinned_rather_than_overlapping():
    tokens = list("abcdefghij" * 12)
    fig = for_projector(attention_map(np.full((2, len(tokens)), 0.5), tokens, ["x", "y"]))
    shown = fig.layout.xaxis.ticktext
    assert 1 < len(shown) < len(tokens)
    step = tokens.index(shown[1], 1)  # every step-th token, the same step throughout
    assert list(shown) == tokens[::step] and list(fig.layout.xaxis.tickvals)[1] == f"{step + 1}: {shown[1]}"
    assert len(shown) * TICK_FONT * 1.4 <= WIDTH  # room for each: upright, or turned on its side


def test_heads_two_per_row_keep_their_token_ticks():
    fig = for_projector(heads_grid(np.full((4, 5, 5), 0.2), list("hello"), columns=2))
    assert list(fig.layout.xaxis.ticktext) == list("hello") and list(fig.layout.xaxis2.ticktext) == list("hello")


def test_a_long_title_wraps_and_the_top_margin_holds_its_lines():
    title = "Attention of the encoder-decoder with Bahdanau attention on the sentence you typed, head by head"
    fig = for_projector(base_layout(go.Figure(go.Scatter(y=[1, 2])), title, 300))
    lines = fig.layout.title.text.split("<br>")
    assert len(lines) == 2 and " ".join(lines) == title
    assert fig.layout.margin.t >= 2 * 24
    assert wrap("short", 24, WIDTH) == "short"


def test_the_legend_goes_below_the_plot_and_the_figure_grows_by_its_rows():
    fig = go.Figure([go.Scatter(y=[k, k + 1], name=f"cell state of unit {k}") for k in range(16)])
    fig.update_layout(height=400, legend=dict(orientation="v", x=1.02))
    shown = for_projector(fig)
    assert shown.layout.legend.orientation == "h" and shown.layout.legend.y == 0
    assert shown.layout.height > 400 * 1.2 and shown.layout.margin.b > 40


def test_run_labels_wrap_and_hand_placed_ticks_too_close_to_read_are_left_out():
    labels = ["Linear ARX (least squares) · known_future=True", "Linear ARX (least squares) · known_future=False"]
    fig = for_projector(runs_comparison(labels, [3.44, 3.84], [4.0, 4.0], "bits per character", log_y=True))
    assert [t.replace("<br>", " ") for t in fig.layout.xaxis.ticktext] == labels
    assert all("<br>" in t for t in fig.layout.xaxis.ticktext)
    before = runs_comparison(labels, [3.44, 3.84], [4.0, 4.0], "bits per character", log_y=True).layout.yaxis
    assert 0 < len(fig.layout.yaxis.tickvals) < len(before.tickvals)


def test_the_walkthrough_stacked_gives_each_panel_the_full_width_and_its_own_colour_bar():
    scores = np.array([[1.5, -np.inf], [1.8, 1.3]])
    side = score_walkthrough(scores, ["Hello", "how"])
    stacked = score_walkthrough(scores, ["Hello", "how"], stacked=True)
    assert tuple(side.layout.xaxis.domain) != (0.0, 1.0) and tuple(stacked.layout.xaxis.domain) == (0.0, 1.0)
    assert tuple(stacked.layout.xaxis2.domain) == (0.0, 1.0) and stacked.layout.yaxis2.domain[1] < 0.5
    bars = [trace.colorbar for trace in stacked.data if trace.type == "heatmap" and trace.showscale is not False]
    assert sorted(bar.y for bar in bars) == [0.21, 0.79] and stacked.layout.height > side.layout.height


def test_a_beams_scores_keep_room_at_the_right_and_a_short_panel_fewer_ticks():
    beam = beam_tree([(list("zweihundertsechsundvierzig"), -51.996), (list("zweihundert"), -60.5)])
    right = beam.layout.xaxis.range[1]
    fitted = for_projector(beam).layout.xaxis
    assert fitted.range[1] > right and fitted.range[0] == beam.layout.xaxis.range[0]
    panels = make_subplots(rows=2, cols=1, row_heights=[0.85, 0.15])
    panels.add_trace(go.Scatter(y=[0, 40]), row=1, col=1)
    panels.add_trace(go.Scatter(y=[0, 40]), row=2, col=1)
    shown = for_projector(base_layout(panels, "Demand and temperature", 400))
    assert shown.layout.yaxis2.nticks < shown.layout.yaxis.nticks
    assert shown.layout.yaxis2.nticks * TICK_FONT * 2 <= (shown.layout.height - 160) * 0.15 + TICK_FONT * 2
