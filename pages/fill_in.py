"""Fill in: a BERT pre-training run guesses the words behind [MASK], with their probabilities."""

import streamlit as st

from seqlab.app.tasks import fill_in_view as view
from seqlab.app import results, state
from seqlab.app.entry import require_entry

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

st.title("Fill in")
st.caption(
    "BERT is pre-trained to guess hidden words from both sides of them (the masked language model). Type a "
    "sentence with [MASK] where a word is missing: the model reads it as [CLS] sentence [SEP] and shows its most "
    "probable words for every blank, with their probabilities."
)

runs = view.masked_lm_runs(state.store().scan()[0])
if not runs:
    view.explain_no_runs()
    st.stop()

run = results.choose_run(runs, "Pre-training run", key="fill_in.run")
text = st.text_input("Sentence with [MASK]", view.EXAMPLE, key="fill_in.text", max_chars=2000)
view.show_guesses(run, text, view.top_k_input())
