"""Translate: a source text through an encoder-decoder: greedy and beam outputs, the attention map, the beam."""

import streamlit as st

from seqlab.app import cache, results, state
from seqlab.app.tasks import translate_view as view
from seqlab.app.entry import require_entry

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

st.title("Translate")
st.caption(
    "Type a source text and read what an encoder-decoder writes: the greedy output and the hypotheses a beam "
    "search keeps, each with its score; where every target token looked in the source (the attention map, with "
    "local attention's predicted position p_t); the beam's hypotheses as a tree; the decoder's equations."
)

runs = view.translation_runs(state.store().scan()[0])
if not runs:
    view.explain_no_runs()
    st.stop()

choose, settings = st.columns(2, gap="large")
with choose:
    run = results.choose_run(runs, "Translation run", key="translate.run")
with settings:
    width, alpha = view.controls("translate")

try:
    data = cache.dataset(run.spec["dataset"], run.spec.get("data_options", {}))
except (KeyError, ValueError, RuntimeError, OSError) as err:
    st.warning(f"This run's dataset cannot be loaded ({err}): type your own source text.", icon=":material/warning:")
    data = None
count = len(data.splits["test"]) if data is not None else 0
i = results.pick_test_item(run, data, count, key=f"translate.sample.{run.run_id}",
                           label="Test pair") if count > 1 else 0
source = view.read_source(run, data, i, key="translate")
if source is None:  # the reader said why
    st.stop()
reference = source.reference
try:
    greedy, beams = cache.translations(run, source.text, source.row, width, alpha)
except ValueError as err:
    st.error(f"Cannot translate this source: {err}")
    st.stop()

first, second = st.columns(2)
first.metric("Greedy translation", greedy.text or "(empty)", border=True,
             help="The most probable token at every step, from [START] to [EOS].")
second.metric(f"Best of a beam of {width}", beams[0].text or "(empty)", border=True,
              delta=None if reference is None else f"reference: {reference}", delta_color="off", delta_arrow="off")
if source.text is not None and len(greedy.source) == run.meta.lookback:
    st.caption(f"The source fills the model's window of {run.meta.lookback} tokens: a longer text was cut there.")
unknown = greedy.source.count("[UNK]")
if unknown:
    st.warning(f"{unknown} of the source's {len(greedy.source)} tokens are unknown to the run's tokeniser ([UNK]): "
               "the model reads each as one token it never learnt. Use characters or words from its training "
               "pairs.", icon=":material/help:")
view.outputs_table(greedy, beams, reference)

pictures, maths = st.columns([2, 1], gap="medium")
with pictures:
    shown_name = st.radio("Attention map of", ["greedy", "best beam"], horizontal=True, key="translate.shown")
    shown = greedy if shown_name == "greedy" else beams[0]
    st.caption("Probability of each token written: " + view.probabilities_line(shown))
    view.attention_section(run, shown, key="translate")
with maths:
    view.equations_panel(run)
if width > 1:
    view.beam_section(beams, key="translate")
