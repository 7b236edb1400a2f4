"""Contributions drawn on a sentence and tags under tokens: colours by sign and size, runs of one tag, escaping."""

import pytest

from seqlab.plots.contributions import AGAINST, FOR, contribution_chips, contribution_colour, token_contributions
from seqlab.plots.tagged_tokens import WRONG, tag_colour, tagged_tokens


def test_the_colour_says_the_sign_and_the_size_relative_to_the_strongest_token():
    assert contribution_colour(0.4, 0.4) == (FOR[-1], "#ffffff")
    assert contribution_colour(-0.4, 0.4)[0] == AGAINST[-1]
    assert contribution_colour(0.11, 0.4)[0] == FOR[1]
    assert contribution_colour(0.01, 0.4)[0] == "#ffffff"  # under an eighth of the strongest: white
    assert contribution_colour(0.0, 0.0)[0] == "#ffffff"


def test_chips_escape_the_text_and_say_the_contribution_on_hover():
    html = contribution_chips(["<b>", "film"], [0.2, -0.1], "positive", marked=1)
    assert "&lt;b&gt;" in html and "<b>" not in html
    assert "+0.2000 to p(positive)" in html and "-0.1000 to p(positive)" in html
    assert html.count("border:3px solid") == 1


def test_the_bar_chart_has_one_bar_per_token_with_the_method_in_its_title():
    fig = token_contributions(["a", "film"], [0.2, -0.1], "positive", "occlusion")
    assert list(fig.data[0].x) == ["1: a", "2: film"]
    assert fig.layout.title.text == "Contribution of each token (occlusion)"
    assert fig.layout.yaxis.title.text == "contribution to p(positive)"


def test_tokens_of_one_tag_share_a_bar_and_wrong_tags_are_red():
    tags = ("day", "month", "other")
    html = tagged_tokens(list("3 may"), [0, 2, 1, 1, 1], tags, truth=[0, 2, 1, 1, 0])
    assert html.count(f"border-bottom:4px solid {tag_colour(1)}") == 1  # "may" under one month bar
    assert html.count(f"color:{WRONG};font-weight:bold") == 1 and "true tag: day" in html
    with pytest.raises(ValueError, match="5 tokens but 4 tags"):
        tagged_tokens(list("3 may"), [0, 2, 1, 1], tags)
