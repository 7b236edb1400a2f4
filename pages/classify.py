"""Classify: type a sentence, read a text classifier's or tagger's answer and which tokens made it."""

import streamlit as st

from seqlab.app import cache, results, state
from seqlab.app.tasks import classify_view as view
from seqlab.app.inspect import inspect_view
from seqlab.app.entry import require_entry
from seqlab.app.run_table import run_title

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

st.title("Classify")
st.caption(
    "Type a sentence and read what a model trained on text makes of it: the class probabilities of a sentence "
    "classifier, or the tag a tagger gives every token. Each token's contribution to the answer is drawn on the "
    "sentence (red raises the probability, blue lowers it). Put two models side by side, a recurrent network "
    "against a CNN, a forward-only tagger against a bidirectional one, and look inside the first for the same "
    "sentence."
)

runs = view.answering_runs(state.store().scan()[0])
if not runs:
    view.explain_no_runs()
    st.stop()

choose, compare = st.columns(2, gap="large")
with choose:
    run = results.choose_run(runs, "Model", key="classify.run")
with compare:
    others = [r for r in runs if r.meta.dataset == run.meta.dataset and r.meta.task == run.meta.task]
    other = results.choose_run(others, "Side by side with (a model of the same data)", key="classify.compare",
                               exclude=run.run_id)

try:
    data = cache.dataset(run.spec["dataset"], run.spec.get("data_options", {}))
except (KeyError, ValueError, RuntimeError, OSError) as err:
    st.warning(f"This run's dataset cannot be loaded ({err}): type your own sentence.", icon=":material/warning:")
    data = None

pick, method_col = st.columns([3, 2], gap="large")
with pick:
    count = len(data.splits["test"]) if data is not None else 0
    i = results.pick_test_item(run, data, count, key=f"classify.sample.{run.run_id}",
                               label="Start from test sentence") if count > 1 else 0
with method_col:
    method = view.method_picker("classify.method")
held_out, truth = view.test_sentence(run, data, i)
text = st.text_area(
    f"Sentence (up to {run.meta.lookback} tokens are read)", value=held_out, key=f"classify.text.{run.run_id}.{i}",
    height=90, max_chars=view.MAX_CHARS,
    help="A test sentence as the run's tokeniser reads it, with its true answer; write your own to see how the "
         "models read it.",
)
if not text.strip():
    st.info("The sentence box is empty: type a sentence, or pick a test sentence above.")
    st.stop()

shown = [r for r in (run, other) if r is not None]
sentences = {}
for column, each in zip(st.columns(len(shown), gap="large"), shown):
    with column:
        if len(shown) > 1:
            st.markdown(f"##### {run_title(each, shown)}")
            st.caption(f"run {each.run_id}")
        same_data = each.spec.get("data_options") == run.spec.get("data_options")  # the same sentences, tokens
        sentence = view.read_sentence(each, text, held_out, truth if same_data else None)
        if sentence is not None:
            sentences[each.run_id] = sentence
            view.show_answer(each, sentence, method, key=f"classify.answer.{each.run_id}")

# ---------------------------------------------------------------- inside the first model, for the same sentence

if run.run_id not in sentences or data is None:  # the pictures' outcome needs the run's classes and data
    st.stop()
st.subheader(f"Inside {results.model_title(run.meta.model)} for this sentence")
layers, unreadable = inspect_view.traced_layers(run)
if not layers:
    st.info(f"{results.model_title(run.meta.model)} keeps no hidden state from one token to the next"
            + (f" ({unreadable})" if unreadable else "")
            + ": there are no states or gates to show. Pick a recurrent model (Elman RNN, LSTM, GRU) as the "
              "first model to see them.")
    st.stop()
inp = view.trace_input(sentences[run.run_id])
try:
    tr = cache.run_trace(run, inp.x, inp.time)
except (ValueError, OSError, TypeError, KeyError) as err:
    st.error(f"Cannot trace this run: {err}. Retrain it, or pick another run.")
    st.stop()
inspect_view.show_trace(run, data, tr, inp)
