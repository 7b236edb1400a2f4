"""Home: what seqlab is, the lecture's model families (which are trainable now), how to start."""

import streamlit as st

from seqlab.app import state
from seqlab.app.entry import require_entry
from seqlab.app.catalogue import families_markdown, families_table
from seqlab.data import list_datasets
from seqlab.models import list_architectures

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

st.title("seqlab: a sequence-modelling lab")
table = families_table()
architectures = [a.title for a in list_architectures()]
missing = table.loc[~table["Available"], "Family"].tolist()
st.markdown(
    f"Train the {len(architectures)} architectures of the lecture notes — "
    f"{', '.join(architectures)} — on real and synthetic series, text and images, watch them learn, look "
    "inside them, and judge them honestly against simple baselines. Each layer is a Keras layer whose "
    "docstring holds its equations, every run is saved with its settings so it can be reproduced, and every "
    "trained model is exported as a TensorFlow **SavedModel** that serves without seqlab. "
    + (f"Not built yet: {', '.join(missing)}; the table below shows how each family is trained."
       if missing else "Every family of the notes can be trained; the table below shows how.")
)

runs, broken = state.store().scan()
if broken:
    st.warning(f"{len(broken)} folder(s) in the run store are not readable runs; the Models page says why and "
               "can delete them.", icon=":material/folder_off:")
c1, c2, c3 = st.columns(3)  # the training device is in the sidebar: its name did not fit a tile
c1.metric("Datasets", len(list_datasets()), border=True)
c2.metric("Architectures", len(list_architectures()), border=True)
c3.metric("Saved runs", len(runs), border=True)

st.header("How to start")
# (title, what it is for, page, link label, icon)
STEPS = (
    ("1 · Pick data", "Look at a dataset before you model it: its series, exogenous inputs with their units, "
     "and where the train, validation and test splits fall.", "pages/data.py", "Open Data", ":material/table_chart:"),
    ("2 · Train", "Choose an architecture that fits the dataset and press **Train**; loss curves draw live. "
     "Or run a **Lesson**: several models, one chart.", "pages/train.py", "Open Train", ":material/model_training:"),
    ("3 · Look inside", "Trace a recurrent run step by step (hidden states, every gate, the gradient through "
     "time) or an HMM's hidden states, beside the equations; see what an embedding learned.",
     "pages/inspect.py", "Open Inspect", ":material/biotech:"),
    ("4 · Compare and export", "Runs side by side: curves, final metrics and a leaderboard per dataset; on Models, "
     "reload the exported SavedModel to predict, download, upload or delete runs.", "pages/compare.py",
     "Open Compare", ":material/compare_arrows:"),
    ("5 · Forecast ahead", "A forecast run from any test origin: direct, iterated, Monte-Carlo bands or an ESN's "
     "free run, beside the naive peers; what if tomorrow is warmer or a holiday.", "pages/forecast.py",
     "Open Forecast", ":material/query_stats:"),
    ("6 · Classify text", "Type a sentence: a classifier's class probabilities or a tagger's tag under every "
     "token, and which tokens made the answer; two models side by side.", "pages/classify.py", "Open Classify",
     ":material/label:"),
    ("7 · Translate", "An encoder-decoder writes a target for your source text: greedy and beam outputs with their "
     "scores, the attention map of where each token looked.", "pages/translate.py", "Open Translate",
     ":material/translate:"),
    ("8 · Generate text", "Continue a prompt with a language run: samples side by side, each token coloured by "
     "its probability, two runs on the same prompt.", "pages/generate.py", "Open Generate", ":material/edit_note:"),
)
PER_ROW = 4  # wide enough for a sentence of text per card
for first in range(0, len(STEPS), PER_ROW):
    for column, (title, text, page, label, icon) in zip(st.columns(PER_ROW), STEPS[first:first + PER_ROW]):
        with column.container(border=True, height="stretch"):
            st.markdown(f"#### {title}")
            st.markdown(text)
            st.page_link(page, label=label, icon=icon)

st.header("Model families of the lecture")
available = int(table["Available"].sum())
st.caption(
    f"The families the lecture notes teach. {available} of {len(table)} can be trained in the dashboard now "
    "(those with a registered architecture, option or mechanism)"
    + ("." if available == len(table) else "; the others are on the way.")
)
st.markdown(families_markdown(table))

st.header("Datasets")
for info in list_datasets():
    with st.container(border=True):
        st.markdown(f"**{info.title}** · `{info.name}` · task: {info.task}")
        st.caption(info.description)
