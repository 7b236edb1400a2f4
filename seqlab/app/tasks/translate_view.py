"""The Translate page's parts: translation runs, the decoding controls, the outputs, the attention map, the beam.

The translations come from ``seqlab.tasks.translate.translation`` through ``seqlab.app.cache`` (greedy, and the hypotheses
a beam search keeps); the figures from ``seqlab.plots.attention``; the equations from the docstrings of the
run's decoder and attention layer, the code that computed them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import cache, figures, results
from seqlab.app.format import stacked_latex
from seqlab.data import SequenceData
from seqlab.layers.docs import equations
from seqlab.models.encoder_decoder import DECODER
from seqlab.plots.attention import attention_map, beam_tree, source_image
from seqlab.runs import Run
from seqlab.tasks import task_can
from seqlab.text.tokenizer import EOS
from seqlab.tasks.translate.translation import Translation

MAX_CHARS = 1_000


def translation_runs(runs: list[Run]) -> list[Run]:
    return [r for r in runs if task_can(r.meta.task, "translate")]


def explain_no_runs() -> None:
    with st.container(border=True):
        st.markdown("#### No translation runs yet")
        st.markdown(
            "Translating needs a trained encoder-decoder. On the **Train** page pick **numbers_en_de** (English "
            "number words to German) or **toy_pairs** (reverse a string), the **Encoder-decoder** architecture "
            "with Bahdanau or Luong attention (or the **Encoder-decoder Transformer**), and press **Train**; or run the lesson *attention-numbers*. From a "
            "terminal: `python -m seqlab train --dataset numbers_en_de --model seq2seq --epochs 10`."
        )
        st.page_link("pages/train.py", label="Train a model", icon=":material/model_training:")


def controls(key: str) -> tuple[int, float]:
    """The beam's width and GNMT's length penalty alpha."""
    width_col, alpha_col = st.columns(2)
    width = width_col.slider("Beam width", 1, 8, 4, key=f"{key}.width",
                             help="Hypotheses kept at every step; 1 is greedy decoding.")
    alpha = alpha_col.slider("Length penalty α", 0.0, 1.5, 0.0, 0.1, key=f"{key}.alpha",
                             help="GNMT's ((5 + t) / 6)^α divides a hypothesis's log-probability: 0 ranks by the "
                                  "plain sum, which favours short outputs; 0.6 to 1 offsets that.")
    return width, alpha


@dataclass(frozen=True)
class Source:
    """What the page translates: a typed ``text``, or test source ``row`` of a run that reads numbers."""

    text: str | None = None
    row: int | None = None
    reference: str | None = None


def typed_text(run: Run, data: SequenceData | None, i: int, key: str) -> Source | None:
    """A text box holding test pair ``i``'s source; its reference counts while the text is unchanged."""
    held_out, reference = "", None
    if data is not None and len(data.splits["test"]):
        row = data.frame.iloc[int(data.splits["test"].origin[i])]
        held_out, reference = str(row["source"]), str(row["target"])
    text = st.text_input(f"Source text (up to {run.meta.lookback} tokens are read)", value=held_out,
                         key=f"{key}.text.{run.run_id}.{i}", max_chars=MAX_CHARS)
    if not text.strip():
        st.info("The source box is empty: type a text to translate, or pick a test pair above.")
        return None
    return Source(text=text, reference=reference if text == held_out else None)


def test_image(run: Run, data: SequenceData | None, i: int, key: str) -> Source | None:
    """Test source ``i`` of numbers (an image read row by row), drawn, and its reference."""
    if data is None:
        st.info("This run reads numbers, not text: its test sources come from its dataset, which cannot be loaded.")
        return None
    test = data.splits["test"]
    image = np.asarray(test.x[i])
    figures.show(source_image(image, run.meta.units.get(run.meta.features[0], "")),
                    key=f"{key}.image.{run.run_id}.{i}", width="content")
    return Source(row=i, reference=str(data.frame["target"].iloc[int(test.origin[i])]))


def read_source(run: Run, data: SequenceData | None, i: int, key: str) -> Source | None:
    """A text box for a run that reads text, the test image for one that reads numbers."""
    return (typed_text if results.reads_text(run) else test_image)(run, data, i, key)


def outputs_table(greedy: Translation, beams: list[Translation], reference: str | None) -> None:
    """Greedy and every beam hypothesis: the text, its score and log-probability, right or not."""
    rows = [("greedy", greedy)] + [(f"beam {k}", b) for k, b in enumerate(beams, start=1)]
    table = pd.DataFrame({
        "decoder": [name for name, _ in rows],
        "translation": [t.text for _, t in rows],
        "score": [t.score for _, t in rows],
        "log p": [t.log_prob for _, t in rows],
        "ended with [EOS]": [t.finished for _, t in rows],
    })  # fmt: skip
    if reference is not None:
        table["= reference"] = [t.text == reference for _, t in rows]
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={"score": st.column_config.NumberColumn(format="%.3f"),
                                "log p": st.column_config.NumberColumn(format="%.3f")})


def attention_section(run: Run, shown: Translation, key: str) -> None:
    """The attention map of one translation, with p_t and its window for local attention."""
    if shown.attention is None:
        st.info("This model has no attention: the decoder read the source only through the encoder's last "
                "state, the notes' context vector (the bottleneck attention removes).")
        return
    written = [*shown.tokens, EOS] if shown.finished else list(shown.tokens)
    half_width = int(run.spec.get("model_options", {}).get("half_width", 0)) if shown.positions is not None else None
    figures.show(attention_map(shown.attention, shown.source, written, shown.positions, half_width),
                    key=f"{key}.map")
    st.caption("Row t: the weights a_t(s) over the source tokens when the decoder wrote target token t (each row "
               "sums to 1)." + (" The red line is local attention's predicted position p_t, dashed its window; "
                                "outside it the weights are 0." if shown.positions is not None else ""))


def equations_panel(run: Run) -> None:
    """The decoder's equations and its attention's, from their docstrings."""
    decoder = cache.model(run).get_layer(DECODER)
    with st.container(border=True):
        st.markdown(f"**{results.model_title(run.meta.model)}: the equations**")
        blocks = decoder.own_equations() + (equations(decoder.reader) if decoder.reader is not None else [])
        for block in blocks:
            st.latex(stacked_latex(block))
        st.caption(f"From the docstrings of `{type(decoder).__module__}` and the layers it calls: the code that "
                   "computed the translation.")


def beam_section(beams: list[Translation], key: str) -> None:
    figures.show(beam_tree([(b.tokens + ([EOS] if b.finished else []), b.score) for b in beams]),
                    key=f"{key}.tree")
    st.caption("The hypotheses the beam kept to the end, best on top; those that share a beginning share its "
               "branch. The score is the sum of log p of the tokens, divided by the length penalty.")


def probabilities_line(shown: Translation) -> str:
    written = [*shown.tokens, EOS] if shown.finished else list(shown.tokens)
    return " · ".join(f"{token} {p:.2f}" for token, p in zip(written, np.asarray(shown.probabilities)))
