"""A lesson on positions: the sinusoidal encoding with its base n, and "Live to Work" against "Work to Live".

``positional_lesson(key)`` draws the encoding ``PosEnc(t, l)`` as a heatmap
and as a position-by-position similarity, with a slider for the base n,
then runs one seeded encoder block on the two word orders with and without
the encoding (``seqlab.inspect.word_order``): without it the words get the
same vectors in both orders. Inspect shows it under a Transformer run; the
Lessons page may call it as it is.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.inspect.word_order import DEFAULT_SENTENCES, WordOrder, word_order
from seqlab.plots.positional import encoding_heatmap, similarity_heatmap

BASES = [10, 100, 1000, 10000, 100000]  # the notes' n; 10,000 in the original Transformer
TOLERANCE = 1e-5  # float32 rounding: "the same vector"


@st.cache_data(show_spinner=False, max_entries=64)
def _encoding(length: int, depth: int, base: float) -> np.ndarray:
    from keras import ops

    from seqlab.layers.transformer import sinusoidal_encoding

    return np.asarray(ops.convert_to_numpy(sinusoidal_encoding(length, depth, base=base)))


@st.cache_data(show_spinner=False, max_entries=64)
def _word_order(first: str, second: str, positions: bool, base: float) -> WordOrder:
    return word_order(first, second, positions=positions, base=base)


def positional_lesson(key: str = "lessons.positional") -> None:
    """The encoding's heatmap and similarity (base n slider), and the word-order demonstration."""
    controls = st.columns(3)
    base = controls[0].select_slider("Base n", BASES, value=10000, key=f"{key}.base",
                                     help="PosEnc(t, 2i) = sin((t−1)/n^(2i/r)): a larger n makes the slow "
                                          "components slower.")
    length = controls[1].slider("Positions T", 8, 128, 50, key=f"{key}.length")
    depth = controls[2].select_slider("Width r", [8, 16, 32, 64, 128], value=64, key=f"{key}.depth")
    encoding = _encoding(length, depth, float(base))
    left, right = st.columns(2, gap="medium")
    left.plotly_chart(encoding_heatmap(encoding, base), key=f"{key}.encoding")
    right.plotly_chart(similarity_heatmap(encoding, base), key=f"{key}.similarity")
    st.caption("Left: each row is the vector added to the token at position t; the first components turn fast, "
               "the last slowly. Right: how alike two positions' vectors are: 1 on the diagonal, falling as the "
               "positions move apart, so near tokens look near.")
    word_order_demo(float(base), key)


def word_order_demo(base: float, key: str) -> None:
    """One seeded encoder block on two word orders, without and with positions: computed, not written down."""
    st.markdown("**Without positions a Transformer reads a bag of words**")
    cols = st.columns(2)
    first = cols[0].text_input("Sentence", DEFAULT_SENTENCES[0], key=f"{key}.first")
    second = cols[1].text_input("The same words in another order", DEFAULT_SENTENCES[1], key=f"{key}.second")
    try:
        runs = {p: _word_order(first, second, p, base) for p in (False, True)}
    except ValueError as err:
        st.warning(str(err))
        return
    rows = []
    for positions, result in runs.items():
        rows.append({
            "input": "embedding + PosEnc(t)" if positions else "embedding only",
            "largest difference of a word's output vector": result.token_difference,
            "largest difference of the mean output": result.mean_difference,
            "the two orders read": "differently" if not result.same(TOLERANCE) else "the same (a bag of words)",
        })  # fmt: skip
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(f"One encoder block (seeded, untrained) reads “{first}” and “{second}”. Self-attention treats its "
               "inputs as a set: without positions every word gets the same output vector in both orders (up to "
               "float rounding), so the mean, what a classifier reads, is the same. Adding PosEnc(t) to each "
               "token makes the orders differ, as an LSTM's would.")
