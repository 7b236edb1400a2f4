"""Per-token contributions drawn on the sentence (HTML) and as bars (plotly).

No Streamlit here: the dashboard renders the HTML with ``st.html``. The colours
are those of the Inspect heatmaps (``RdBu``): red raises the explained class's
probability, blue lowers it, white leaves it; the strongest token of the
sentence sets the full colour. Token text is user data, so it is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from seqlab.plots.generated import shown_token
from seqlab.plots.style import base_layout

# ColorBrewer RdBu, 4 bins each side of white: index 0 white, +k red, -k blue.
FOR = ("#fddbc7", "#f4a582", "#d6604d", "#b2182b")
AGAINST = ("#d1e5f0", "#92c5de", "#4393c3", "#2166ac")
DARK_FROM = 2  # bins whose background needs white text
_CHIP = "display:inline-block;margin:2px 1px;padding:1px 4px;border-radius:4px;border:1px solid #c8ccd0"


def contribution_colour(score: float, strongest: float) -> tuple[str, str]:
    """Background and text colour of a token whose contribution is ``score``, the sentence's largest |score|
    being ``strongest``: white near 0, then four bins of red (for) or blue (against)."""
    if strongest <= 0 or abs(score) < strongest / 8:
        return "#ffffff", "#000000"
    k = min(int(abs(score) / strongest * len(FOR)), len(FOR) - 1)
    return (FOR if score > 0 else AGAINST)[k], ("#ffffff" if k >= DARK_FROM else "#000000")


def contribution_chips(tokens: Sequence[str], scores: Sequence[float], explained: str,
                       marked: int | None = None) -> str:
    """The sentence as chips coloured by each token's contribution to ``p(explained)``; hover says how much.

    ``marked``: a token drawn with a thick frame (the token whose tag is explained).
    """
    scores = np.asarray(scores, dtype="float64")
    strongest = float(np.abs(scores).max(initial=0.0))
    chips = []
    for k, (token, score) in enumerate(zip(tokens, scores, strict=True)):
        background, colour = contribution_colour(float(score), strongest)
        frame = ";border:3px solid #111" if k == marked else ""
        hover = f"token {k + 1} “{shown_token(token)}”: {score:+.4f} to p({explained})"
        chips.append(f'<span style="{_CHIP};background:{background};color:{colour}{frame}" '
                     f'title="{html.escape(hover, quote=True)}">{html.escape(shown_token(token))}</span>')
    return '<div style="font-family:monospace;font-size:1.05em;line-height:2.0">' + "".join(chips) + "</div>"


def contribution_legend(explained: str) -> str:
    """What the colours mean, strongest against to strongest for."""
    swatches = [(AGAINST[k], k >= DARK_FROM) for k in reversed(range(len(AGAINST)))] + [("#ffffff", False)]
    swatches += [(FOR[k], k >= DARK_FROM) for k in range(len(FOR))]
    cells = "".join(f'<span style="background:{bg};color:{"#fff" if dark else "#000"};padding:0 0.6em">&nbsp;</span>'
                    for bg, dark in swatches)
    name = html.escape(explained)
    return (f'<div style="font-size:0.85em;color:#555">lowers p({name}) {cells} raises p({name}) '
            "(relative to this sentence's strongest token)</div>")


def token_contributions(tokens: Sequence[str], scores: Sequence[float], explained: str, method: str) -> go.Figure:
    """One bar per token: its contribution to ``p(explained)``, red for, blue against."""
    scores = np.asarray(scores, dtype="float64")
    labels = [f"{k}: {shown_token(t)}" for k, t in enumerate(tokens, start=1)]
    fig = go.Figure(go.Bar(
        x=labels, y=scores, marker_color=[FOR[2] if s > 0 else AGAINST[2] for s in scores],
        hovertemplate="%{x}<br>%{y:+.4f}<extra></extra>",
    ))  # fmt: skip
    fig.update_xaxes(title_text="token", type="category", tickangle=-45 if len(tokens) > 4 else 0)
    fig.update_yaxes(title_text=f"contribution to p({explained})", zeroline=True, zerolinecolor="#888")
    fig = base_layout(fig, f"Contribution of each token ({method})", 320)
    fig.update_layout(hovermode="closest", showlegend=False)
    return fig
