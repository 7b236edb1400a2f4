"""Inspect's view of a Transformer: attention weights per layer and head, the equations, the score walk-through.

Registered for ``AttentionTrace`` results (``seqlab.inspect.attention``) in
``inspect_view.RESULT_VIEWS``. The weights are the layers' own (each block
re-called with ``return_attention_scores=True`` on the traced input); the
walk-through's scores come from the first layer's own $W^Q$ and $W^K$.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from seqlab.app import figures
from seqlab.app.inspect.inspect_view import RESULT_VIEWS, InspectInput, equations_panel, sample_outcome
from seqlab.app.inspect.positional_view import positional_lesson
from seqlab.app.projector_style import projector_on
from seqlab.app.task_views import view_for
from seqlab.data import SequenceData
from seqlab.inspect import Trace
from seqlab.inspect.attention import AttentionTrace, mask_future
from seqlab.plots.heads import GRID_COLUMNS, head_heatmap, heads_grid, score_walkthrough
from seqlab.runs import Run

AVERAGE = "average over heads"
MAX_WALKTHROUGH = 12  # tokens: beyond this the numbers in the cells cannot be read
PROJECTOR_COLUMNS = 2  # heads per row on a projector: four would get about 60 px each at 1024 px
ATTENTION_NAMES = {"self": "self-attention", "cross": "cross-attention (over the context)"}


def pick_attention(layers: list[AttentionTrace], run_id: str) -> tuple[AttentionTrace, str, str]:
    """Layer, attention (self or cross) and head choosers: the layer, the attention's name, the head (or average)."""
    controls = st.columns(3, gap="large")
    with controls[0]:
        by_key = {layer.key: layer for layer in layers}
        key = st.selectbox(
            "Layer", list(by_key), key=f"inspect.attention.layer.{run_id}",
            format_func=lambda k: f"{k} · {by_key[k].kind} · {by_key[k].heads} head(s)",
            help="Stacked blocks read the block below's output; the first reads the embeddings (plus positions).",
        )  # fmt: skip
        layer = by_key[key]
    with controls[1]:
        attention = "self"
        if len(layer.attentions) > 1:
            attention = st.radio("Attention", layer.attentions, key=f"inspect.attention.which.{run_id}",
                                 format_func=ATTENTION_NAMES.get, horizontal=True)
    with controls[2]:
        heads = [AVERAGE] + [f"head {k}" for k in range(1, layer.heads + 1)]
        head = st.selectbox("Head", heads, key=f"inspect.attention.head.{run_id}",
                            help="Each head has its own W^Q, W^K, W^V: it learns to look for something else.")
    return layer, attention, head


def chosen_weights(layer: AttentionTrace, attention: str, head: str) -> np.ndarray:
    """``(T_q, T_k)``: one head's weights, or the average over the heads."""
    if head == AVERAGE:
        return layer.average(attention)
    return layer.arrays[attention][int(head.split()[-1]) - 1]


@view_for(RESULT_VIEWS, "AttentionTrace")
def attention_view(run: Run, data: SequenceData, tr: Trace, inp: InspectInput) -> None:
    """A Transformer: heatmaps per layer and head, the layer's equations, the first layer's masked scores."""
    layers = tr.of(AttentionTrace)
    layer, attention, head = pick_attention(layers, run.run_id)
    queries, keys = layer.query_labels, layer.key_labels[attention]
    pictures, maths = st.columns([2, 1], gap="medium")
    with maths:
        equations_panel(layer, source="the layer's docstring")
        sample_outcome(run, data, tr.outputs, inp.y_true)
    with pictures:
        figures.show(
            head_heatmap(chosen_weights(layer, attention, head), queries, keys,
                         title=f"{ATTENTION_NAMES[attention].capitalize()} of {layer.label}: {head}"),
            key="inspect.attention.map",
        )
        st.caption("Row i: how query token i spreads its attention over the key tokens j (the row sums to 1). "
                   "Dark cells are where it reads from; a masked key gets exactly 0.")
    if layer.heads > 1:
        figures.show(heads_grid(layer.arrays[attention], queries, keys,
                                title=f"All {layer.heads} heads of {layer.label} ({ATTENTION_NAMES[attention]})",
                                columns=PROJECTOR_COLUMNS if projector_on() else GRID_COLUMNS),
                     key="inspect.attention.grid")
        st.caption("The same sentence through every head of the layer: the heads share their input and differ "
                   "only by their own projections W^Q, W^K, W^V.")
    walkthrough(layers[0], head, run.run_id)
    with st.expander("Positions: why the Transformer adds PosEnc(t) to every token", icon=":material/pin:"):
        positional_lesson(key=f"inspect.positional.{run.run_id}")


def walkthrough(first: AttentionTrace, head: str, run_id: str) -> None:
    """The notes' step by step on the first layer: scaled scores a'_ij with the mask, then their softmax."""
    st.subheader(f"Step by step: the scores of {first.label} before and after the softmax")
    scores = first.scores["self"]
    steps = len(first.query_labels)
    if steps > MAX_WALKTHROUGH:
        st.info(f"The input has {steps} tokens; the walk-through writes a number in every cell, readable for up "
                f"to {MAX_WALKTHROUGH}: type a shorter sentence (the notes use “Hello how are”).")
        return
    number = min(1 if head == AVERAGE else int(head.split()[-1]), first.heads)
    matrix = scores[number - 1]
    future = np.isneginf(mask_future(np.zeros_like(matrix)))
    decoder = bool(future.any()) and bool(np.isneginf(matrix[future]).all())  # the layer masks the future itself
    causal = decoder or st.toggle(
        "Apply the decoder's causal mask (the notes' walk-through)", key=f"inspect.causal.{run_id}",
        help="A decoder must not read later tokens: a'_ij = −∞ for j > i, so their weight is 0.",
    )  # fmt: skip
    if causal:
        matrix = mask_future(matrix)
    figures.show(score_walkthrough(matrix, first.query_labels,
                                   title=f"Head {number} of {first.label}: a'_ij, masked, and softmax a_ij",
                                   stacked=projector_on()),  # on a projector each panel gets the full width
                 key="inspect.attention.scores")
    if decoder:
        which = "This decoder block masks every later token itself: the softmax matrix is its recorded weights."
    elif causal:
        which = "This block reads every token; the causal mask shows what a decoder would do with the same scores."
    else:
        which = "The softmax matrix is this head's recorded weights."
    st.caption("1. MatMul and scale: a'_ij = q_iᵀ k_j / √d_k, from this layer's own W^Q and W^K on the input. "
               "2. Mask: −∞ where query i may not read key j (padding; under the causal mask every later token). "
               "3. SoftMax over each row: exp(−∞) = 0, so a masked key gets weight 0 and the rest sum to 1. "
               + which)
