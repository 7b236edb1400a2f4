"""The notes' scaled dot-product attention on "Hello how are", step by step, for the self-attention lesson.

``notes_walkthrough(key)`` draws the notes' scaled scores, the decoder's
causal mask and the softmax; no training needed. Inspect shows the same
walk-through on a trained Transformer's own first layer.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from seqlab.app import figures
from seqlab.app.projector_style import projector_on
from seqlab.inspect.attention import mask_future
from seqlab.plots.heads import score_walkthrough

NOTES_TOKENS = ["Hello", "how", "are"]
# Seed 001's scaled score matrix a'_ij = q_i^T k_j / sqrt(d_k) for "Hello how are", before the mask.
NOTES_SCORES = np.array([[1.5, 1.4, 1.9], [1.8, 1.3, 2.0], [2.4, 2.0, 2.5]])


def notes_walkthrough(key: str) -> None:
    """Seed 001's numbers: the scaled scores, optionally masked, beside their softmax."""
    masked = st.toggle("Decoder: mask the future (causal mask)", value=True, key=f"{key}.causal",
                       help="A decoder writing “how” must not read “are”: a'_ij = −∞ for j > i, so after the "
                            "softmax its weight is exactly 0.")
    scores = mask_future(NOTES_SCORES) if masked else NOTES_SCORES
    figures.show(score_walkthrough(scores, NOTES_TOKENS, title="Scaled dot-product attention on “Hello how are”"
                                   + (" with the causal mask" if masked else ""), stacked=projector_on()),
                 key=f"{key}.walkthrough")
    st.caption("The notes' scaled score matrix (seed 001). 1. MatMul Q·Kᵀ and scale by √d_k. 2. Mask (decoder "
               "only): −∞ above the diagonal. 3. SoftMax over each row: the weights sum to 1, a masked key gets "
               "0, so “Hello” reads only itself. 4. The weights multiply the values: Attention(Q, K, V) = "
               "softmax(QKᵀ/√d_k) V.")
