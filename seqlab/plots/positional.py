r"""The sinusoidal positional encoding, as a heatmap and as a position-by-position similarity.

The notes' encoding (seed 000), position $t = 1, 2, \dots$, component $l$ of $r$, base $n$:

$$ \mathrm{PosEnc}(t, 2i) = \sin\big((t-1)/n^{2i/r}\big), \quad
   \mathrm{PosEnc}(t, 2i+1) = \cos\big((t-1)/n^{2i/r}\big) $$

The first components turn fast with $t$, the last ones slowly: every
position gets its own vector, and (seed 002) the similarity of two
positions' vectors falls as they move apart.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from seqlab.plots.style import base_layout

TICK_SIZE = 16  # readable at a projector
ENCODING = "RdBu_r"  # sin and cos in [-1, 1]: -1 blue, 0 white, +1 red
SIMILARITY = "Viridis"


def cosine_similarity(encoding: np.ndarray) -> np.ndarray:
    r"""$\cos(\mathrm{PosEnc}(t,:), \mathrm{PosEnc}(t',:))$ for every pair of rows of ``(T, r)``: ``(T, T)``."""
    encoding = np.asarray(encoding, dtype="float64")
    norms = np.linalg.norm(encoding, axis=1, keepdims=True)
    unit = encoding / np.where(norms > 0, norms, 1.0)
    return unit @ unit.T


def _style(fig: go.Figure) -> None:
    fig.update_xaxes(tickfont=dict(size=TICK_SIZE), title_font=dict(size=TICK_SIZE + 2))
    fig.update_yaxes(tickfont=dict(size=TICK_SIZE), title_font=dict(size=TICK_SIZE + 2), autorange="reversed")
    fig.update_layout(hovermode="closest")


def encoding_heatmap(encoding: np.ndarray, base: float, title: str | None = None) -> go.Figure:
    """``PosEnc`` ``(T, r)``: position t (from 1) down, component l (from 0) across, values in [-1, 1]."""
    encoding = np.asarray(encoding, dtype="float64")
    if encoding.ndim != 2:
        raise ValueError(f"encoding must have shape (T, r), got {encoding.shape}.")
    positions = np.arange(1, encoding.shape[0] + 1)
    fig = go.Figure(go.Heatmap(
        z=encoding, x=np.arange(encoding.shape[1]), y=positions, zmin=-1.0, zmax=1.0, colorscale=ENCODING,
        colorbar=dict(title=dict(text="PosEnc(t, l)", side="right")),
        hovertemplate="position t = %{y}<br>component l = %{x}<br>PosEnc = %{z:.3f}<extra></extra>",
    ))  # fmt: skip
    fig.update_xaxes(title_text="component l of the encoding (0 .. r−1)")
    fig.update_yaxes(title_text="position t")
    _style(fig)
    default = f"Sinusoidal positional encoding, base n = {base:g}, r = {encoding.shape[1]}"
    return base_layout(fig, title or default, 440)


def similarity_heatmap(encoding: np.ndarray, base: float, title: str | None = None) -> go.Figure:
    """The cosine similarity of every two positions' encodings ``(T, T)``: 1 on the diagonal, falling with distance."""
    similarity = cosine_similarity(encoding)
    positions = np.arange(1, similarity.shape[0] + 1)
    fig = go.Figure(go.Heatmap(
        z=similarity, x=positions, y=positions, zmin=-1.0, zmax=1.0, colorscale=SIMILARITY,
        colorbar=dict(title=dict(text="cosine similarity", side="right")),
        hovertemplate="position t = %{y}<br>position t' = %{x}<br>cos = %{z:.3f}<extra></extra>",
    ))  # fmt: skip
    fig.update_xaxes(title_text="position t'")
    fig.update_yaxes(title_text="position t")
    _style(fig)
    return base_layout(fig, title or f"Similarity of the positions' encodings (base n = {base:g})", 440)
