"""Generated text as HTML: escaped tokens, colours by probability, alternatives on hover."""

import html

from seqlab.plots import probability_legend, token_spans
from seqlab.plots.generated import PROBABILITY_COLOURS, probability_colour


def test_token_text_is_escaped_and_alternatives_are_in_the_title():
    page = token_spans("<b>prompt", ["<script>", "x"], [0.9, 0.05],
                       [[("<script>", 0.9), ("a", 0.05)], [("y", 0.6), ("x", 0.05)]])  # fmt: skip
    assert "<script>" not in page and "<b>" not in page
    assert "&lt;script&gt;" in page and "&lt;b&gt;prompt" in page
    titles = [html.unescape(t.split('"')[0]) for t in page.split('title="')[1:]]
    assert titles[0].splitlines() == ["p = 0.900", "<script>: 0.900", "a: 0.050"]
    assert titles[1].splitlines()[1] == "y: 0.600"
    assert page.count("<span") == 3  # the prompt and two tokens


def test_colour_follows_probability_and_the_legend_names_every_bin():
    assert probability_colour(0.0)[0] == PROBABILITY_COLOURS[0]
    assert probability_colour(1.0)[0] == PROBABILITY_COLOURS[-1]
    assert probability_colour(0.5)[0] == PROBABILITY_COLOURS[2]
    legend = probability_legend()
    assert all(c in legend for c in PROBABILITY_COLOURS) and "probability" in legend


def test_hover_makes_spaces_and_line_ends_visible():
    page = token_spans("", [" "], [0.5], [[(" ", 0.5), ("\n", 0.2)]])
    assert "␣: 0.500" in html.unescape(page) and "\\n: 0.200" in html.unescape(page)
