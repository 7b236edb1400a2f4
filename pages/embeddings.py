"""Embeddings: a trained run's embedding matrix in 2-D or 3-D, each point a token, its nearest neighbours by cosine."""

import numpy as np
import streamlit as st

from seqlab.app.inspect import embeddings_view as view
from seqlab.app import figures, state
from seqlab.app.entry import require_entry
from seqlab.inspect.embeddings import cosine_neighbours, shown_tokens
from seqlab.plots import embedding_projection

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

st.title("Embeddings")
st.caption(
    "What a language model learned about its tokens: every token is a vector, a column of the embedding matrix. "
    "Tokens used alike end up pointing alike; the plot shows the vectors on their principal axes, the table "
    "the tokens whose vectors point closest to a chosen one."
)

# ---------------------------------------------------------------- which run, which embedding

runs = state.store().scan()[0]
layers = {r.run_id: view.saved_layers(r) for r in runs}
for run_id, (_, unreadable) in layers.items():
    if unreadable:
        st.warning(f"Run `{run_id}` cannot be read: {unreadable}. Retrain it or delete it on Models.",
                   icon=":material/broken_image:")
embedded = [r for r in runs if layers[r.run_id][0]]
if not embedded:
    view.explain_no_embedding(runs)
    st.stop()

run = view.pick_run(embedded, [r for r in runs if not layers[r.run_id][0] and not layers[r.run_id][1]])
try:
    found = view.matrices(run)
except ValueError as err:
    st.error(f"Cannot load this run's model: {err}. Retrain it, or pick another run.")
    st.stop()
if not found:
    st.error("The model file lists an embedding layer, but the loaded model has none: retrain this run.")
    st.stop()
embedding = view.pick_embedding(found, run.run_id)
rows, rank = embedding.matrix.shape
if not embedding.matrix.any():
    st.info("Every vector of this embedding is zero: there is no direction to project or compare. Pick another run.")
    st.stop()
toks = view.tokens(run, embedding)
order = shown_tokens(rows, rows, toks.counts)  # every id, most frequent first when known

# ---------------------------------------------------------------- controls, neighbours, projection

dims, cap, token, k = view.controls(embedding, toks, order, run.run_id)
ids, cosines = cosine_neighbours(embedding.matrix, token, k + 1)  # the token itself first, cosine 1
shown = shown_tokens(rows, cap, toks.counts)
missing = ids[~np.isin(ids, shown)]
plotted = np.concatenate([shown, missing])  # neighbours beyond the cap are shown too
projected = view.projection(run, embedding)

picture, maths = st.columns([2, 1], gap="medium")
with picture:
    figures.show(
        embedding_projection(
            projected.points[plotted, :dims], plotted, [toks.texts[i] for i in plotted], projected.explained[:dims],
            chosen=token, neighbours=ids,
            counts=None if toks.counts is None else toks.counts[plotted], labelled=view.LABELLED,
            title=f"{len(plotted):,} of {rows:,} token embeddings (rank r = {rank}), first {dims} principal axes",
        ),
        key="embeddings.plot",
    )  # fmt: skip
    st.caption(
        f"{toks.note} The axes are fitted on all {rows:,} embeddings, so the picture stays put when the cap "
        "changes. "
        + (f"{len(missing)} neighbour(s) beyond the cap are added. " if len(missing) else "")
        + (f"Tokens are written beside the first {view.LABELLED} points and the highlighted ones; hover for the "
           "others. " if len(plotted) > view.LABELLED else "")
        + f"Together the {dims} axes hold {100 * float(projected.explained[:dims].sum()):.0f} % of the variance: "
        "tokens close in the plot may still be far apart in the other directions; the cosine table measures "
        "all of them."
    )
with maths:
    view.equations_panel(embedding)
    st.markdown(f"**Nearest by cosine to** {view.token_code(toks.texts[token])} (id {token})")
    view.neighbours_table(ids, cosines, toks)
