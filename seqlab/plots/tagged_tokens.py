"""A tagged sentence as HTML: the tokens with the tags a labelling model gave them underneath.

No Streamlit here: the dashboard renders the string with ``st.html``. Runs of
tokens with the same tag share one coloured bar and the tag's name (so a
character-level tagging reads as fields, not letters); one colour per tag, the
same for every model, so two models read side by side. A token whose tag
differs from the truth is red and says the true tag on hover. Token and tag
text is user data, so it is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from itertools import groupby

from seqlab.plots.generated import shown_token
from seqlab.plots.style import EXTRA_COLORS

TAG_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", *EXTRA_COLORS)
WRONG = "#d62728"
_GROUP = "display:inline-flex;flex-direction:column;align-items:stretch;margin:3px 3px 3px 0;vertical-align:top"


def tag_colour(tag: int) -> str:
    return TAG_COLOURS[tag % len(TAG_COLOURS)]


def tagged_tokens(tokens: Sequence[str], tags: Sequence[int], tag_names: Sequence[str],
                  truth: Sequence[int] | None = None, probabilities: Sequence[float] | None = None) -> str:
    """The tokens in runs of one predicted tag, each run over a bar in its tag's colour and its name.

    ``truth``: the true tags; a token tagged otherwise is red, with the true tag on hover.
    ``probabilities``: the model's probability of each predicted tag, shown on hover.
    """
    if len(tokens) != len(tags):
        raise ValueError(f"{len(tokens)} tokens but {len(tags)} tags: give one tag per token.")
    groups, k = [], 0
    for tag, run in groupby(int(t) for t in tags):
        pieces = []
        for _ in run:
            wrong = truth is not None and int(truth[k]) != tag
            hover = f"token {k + 1} “{shown_token(tokens[k])}”: {tag_names[tag]}"
            hover += f" (p = {float(probabilities[k]):.3f})" if probabilities is not None else ""
            hover += f"; true tag: {tag_names[int(truth[k])]}" if wrong else ""
            style = f"color:{WRONG};font-weight:bold;text-decoration:underline wavy {WRONG}" if wrong else ""
            pieces.append(f'<span style="{style}" title="{html.escape(hover, quote=True)}">'
                          f"{html.escape(shown_token(tokens[k]))}</span>")
            k += 1
        colour = tag_colour(tag)
        groups.append(
            f'<span style="{_GROUP}"><span style="font-family:monospace;font-size:1.1em;white-space:pre;'
            f'border-bottom:4px solid {colour};padding:0 2px">{"".join(pieces)}</span>'
            f'<span style="font-size:0.72em;color:{colour};text-align:center">{html.escape(tag_names[tag])}</span>'
            "</span>"
        )
    return '<div style="line-height:1.3">' + "".join(groups) + "</div>"


def tag_legend(tag_names: Sequence[str]) -> str:
    """One swatch per tag, and what red means."""
    return '<div style="font-size:0.85em">' + " ".join(
        f'<span style="border-bottom:4px solid {tag_colour(k)};padding:0 0.4em;margin-right:0.4em">'
        f"{html.escape(name)}</span>" for k, name in enumerate(tag_names)
    ) + f' <span style="color:{WRONG};font-weight:bold">red</span>: a wrong tag (hover for the true one)</div>'
