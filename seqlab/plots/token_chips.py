"""A text as a row of token chips: one box per token, unknown tokens marked.

No Streamlit here: the dashboard renders the string with ``st.html``. Token text
is user data, so every piece is escaped; spaces and line ends are made visible.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from seqlab.plots.generated import shown_token

CHIP_BACKGROUNDS = ("#e8f0fa", "#f3f3f3")  # alternate, so neighbouring chips stay apart
UNKNOWN_STYLE = "background:#fde0dd;border-color:#d62728;color:#a50f15;font-weight:bold"
_CHIP = "display:inline-block;margin:2px;padding:1px 5px;border:1px solid #c8ccd0;border-radius:4px"


def token_chips(pieces: Sequence[tuple[str, bool]]) -> str:
    """``(text, known)`` per token -> HTML chips; an unknown token is red and says so on hover."""
    chips = []
    for k, (text, known) in enumerate(pieces):
        style = f"{_CHIP};background:{CHIP_BACKGROUNDS[k % 2]}" if known else f"{_CHIP};{UNKNOWN_STYLE}"
        hover = f"token {k + 1}" + ("" if known else ": unknown, encoded as [UNK]")
        chips.append(f'<span style="{style}" title="{html.escape(hover, quote=True)}">'
                     f"{html.escape(shown_token(text))}</span>")  # fmt: skip
    return '<div style="font-family:monospace;line-height:1.9">' + "".join(chips) + "</div>"
