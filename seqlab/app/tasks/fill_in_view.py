"""The Fill in page's parts: which runs fill blanks, and each blank's guesses as a bar chart."""

from __future__ import annotations

import streamlit as st

from seqlab.app import cache, figures
from seqlab.tasks.masked_lm.fill_in import MAX_TOP_K, fill_in_model
from seqlab.plots.fill_in import blank_guesses
from seqlab.runs import Run
from seqlab.tasks import task_can

EXAMPLE = "the film is [MASK] , and the acting is [MASK] ."


def masked_lm_runs(runs: list[Run]) -> list[Run]:
    return [r for r in runs if task_can(r.meta.task, "fill_in")]


def explain_no_runs() -> None:
    with st.container(border=True):
        st.markdown("#### No BERT pre-training runs yet")
        st.markdown(
            "Filling in blanks needs a masked language model. On the **Train** page pick the "
            "**movie_reviews_mlm** dataset and the **BERT** model (a few epochs take minutes), and press "
            "**Train**. Or from a terminal: `python -m seqlab train --dataset movie_reviews_mlm --model bert "
            "--epochs 3`."
        )
        st.page_link("pages/train.py", label="Pre-train a BERT", icon=":material/model_training:")


def top_k_input(key: str = "fill_in.top_k") -> int:
    return int(st.number_input("Guesses per blank", 1, MAX_TOP_K, 5, key=key))


def show_guesses(run: Run, text: str, top_k: int, key: str = "fill_in") -> None:
    """The guesses for every [MASK] of ``text``, or why there are none; the notes (trimmed, unknown words).
    ``key`` prefixes the charts' keys (two runs' guesses on one page)."""
    try:
        filled = fill_in_model(cache.model(run), cache.tokenizer(run), text, top_k)
    except ValueError as err:
        st.error(str(err))
        return
    for note in filled.notes:
        st.info(note)
    st.markdown(f"**Best guess:** {filled.text()}")
    columns = st.columns(min(len(filled.blanks), 3))
    for n, blank in enumerate(filled.blanks):
        with columns[n % len(columns)]:
            figures.show(blank_guesses(blank, f"[MASK] {n + 1} (token {blank.position})"),
                            key=f"{key}.chart.{n}")
