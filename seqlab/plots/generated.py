"""Generated text as HTML: each token coloured by the model's probability of it, its top alternatives on hover.

No Streamlit here: the dashboard renders the string with ``st.html``; a notebook
with ``IPython.display.HTML``. Token text is user data, so every piece is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

# A readable sequential scale (ColorBrewer YlGnBu, light = improbable -> dark = probable), in 5 bins.
PROBABILITY_COLOURS = ("#ffffcc", "#c7e9b4", "#7fcdbb", "#41b6c4", "#2c7fb8")
DARK_FROM = 3  # bins whose background needs white text to read
TOP_SHOWN = 5


def bin_colours(k: int) -> tuple[str, str]:
    """The background and text colour of probability bin ``k``."""
    return PROBABILITY_COLOURS[k], ("#ffffff" if k >= DARK_FROM else "#000000")


def probability_colour(prob: float) -> tuple[str, str]:
    """The background and text colour of a token with probability ``prob`` (bins of 0.2)."""
    return bin_colours(min(int(max(prob, 0.0) * len(PROBABILITY_COLOURS)), len(PROBABILITY_COLOURS) - 1))


def shown_token(token: str) -> str:
    """A token as the hover text writes it: spaces and line ends made visible."""
    return token.replace("\n", "\\n").replace(" ", "␣") or "(empty)"


def token_spans(
    prompt: str,
    tokens: Sequence[str],
    probs: Sequence[float],
    alternatives: Sequence[Sequence[tuple[str, float]]],
) -> str:
    """The prompt (plain) followed by one ``<span>`` per generated token.

    Each span's background is the probability bin, its ``title`` the chosen
    token's probability and the top-5 alternatives of that step.
    """
    pieces = [f'<span style="color:#666">{html.escape(prompt)}</span>']
    for token, prob, top in zip(tokens, probs, alternatives, strict=True):
        background, colour = probability_colour(prob)
        hover = f"p = {prob:.3f}\n" + "\n".join(f"{shown_token(t)}: {p:.3f}" for t, p in top[:TOP_SHOWN])
        pieces.append(
            f'<span style="background:{background};color:{colour}" title="{html.escape(hover, quote=True)}">'
            f"{html.escape(token)}</span>"
        )
    return '<div style="font-family:monospace;white-space:pre-wrap;line-height:1.6">' + "".join(pieces) + "</div>"


def probability_legend() -> str:
    """What the colours mean: one swatch per probability bin."""
    n = len(PROBABILITY_COLOURS)
    swatches = "".join(
        f'<span style="background:{background};color:{colour};padding:0 0.5em">{k / n:.1f}–{(k + 1) / n:.1f}</span>'
        for k, (background, colour) in enumerate(map(bin_colours, range(n)))
    )
    return f'<div style="font-size:0.85em">Model probability of the chosen token: {swatches}</div>'
