"""Generate: a prompt through a language run, several samples side by side, each token coloured by its probability."""

import streamlit as st

from seqlab.app.tasks import generate_view as view
from seqlab.app import results, state
from seqlab.app.entry import require_entry
from seqlab.app.format import literal

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

st.title("Generate")
st.caption(
    "Continue a prompt with a trained language model. Every token is drawn from the model's next-token "
    "distribution (divided by the temperature, cut to the top-k or top-p); its colour says how probable the "
    "model found it, and hovering shows the alternatives it weighed."
)

runs = view.language_runs(state.store().scan()[0])
if not runs:
    view.explain_no_language_runs()
    st.stop()

choose, compare = st.columns(2, gap="large")
with choose:
    run = results.choose_run(runs, "Language run", key="generate.run")
    view.tokenizer_caption(run)
with compare:
    other = results.choose_run(runs, "Compare with", key="generate.compare", exclude=run.run_id)
    if other is not None:
        view.tokenizer_caption(other)

prompt = st.text_area("Prompt", "The ", key="generate.prompt", max_chars=2000)
settings = view.controls()
if st.button("Generate", key="generate.go", type="primary"):
    st.session_state["generate.request"] = (prompt, settings)
if "generate.request" not in st.session_state:
    st.stop()

prompt, settings = st.session_state["generate.request"]
view.legend()
compared = [r for r in (run, other) if r is not None]
for column, shown in zip(st.columns(len(compared), gap="large"), compared):
    with column:
        if len(compared) > 1:
            st.markdown(f"##### {literal(results.run_label(shown))}")  # a run's name is the user's text
        view.show_samples(shown, prompt, settings)
