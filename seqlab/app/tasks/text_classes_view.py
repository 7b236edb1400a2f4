"""Views of classify and label runs on text: sentences in, classes or tags out.

Registered as ``"classify.text"`` and ``"label.text"`` (``task_views.view_of``
picks them for data with a tokeniser): the Data page's preview (class balance,
sentences as the tokeniser reads them), the test-split figure (the confusion
matrix and sentences the model got wrong), the SavedModel's answer for a test
sentence, and Inspect's input (a text box encoded by the run's tokeniser,
its tokens on the time axis).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import figures
from seqlab.app.inspect.inspect_text_view import readable_tokenizer, token_labels
from seqlab.app.inspect.inspect_view import InspectInput
from seqlab.app.results import classes_of
from seqlab.app.task_views import DATA_PREVIEWS, INSPECT_INPUTS, PREDICTIONS, SERVING, TEXT, view_for
from seqlab.data import DatasetInfo, SequenceData
from seqlab.plots import class_probabilities, confusion_matrix
from seqlab.runs import Run
from seqlab.tasks import get_task
from seqlab.text import UNK_ID, Tokenizer

EXAMPLES = 12  # sentences shown in a table
MAX_CHARS = 2_000  # a sentence typed on Inspect


def sentence(data: SequenceData, ids) -> str:
    """A sentence as the tokeniser kept it (standardised, trimmed, unknown words as [UNK])."""
    return data.tokenizer.decode(np.asarray(ids))


def class_names(data: SequenceData, ids) -> list[str]:
    return [data.classes[int(i)] for i in np.ravel(ids)]


@view_for(DATA_PREVIEWS, "classify" + TEXT, "label" + TEXT)
def sentences_preview(info: DatasetInfo, data: SequenceData) -> None:
    """How the classes are spread over the splits, and sentences as the model will read them."""
    st.markdown("**Classes in each split**" + (" (tokens)" if get_task(data.task).sequence_outputs else " (sentences)"))
    st.dataframe(data.class_counts(), width="stretch")
    test = data.splits["test"]
    rows = min(EXAMPLES, len(test))
    table = pd.DataFrame({"sentence (as the tokeniser reads it)": [sentence(data, test.x[i]) for i in range(rows)]})
    if not get_task(data.task).sequence_outputs:  # one class per sentence
        table["class"] = class_names(data, test.y[:rows])
    st.markdown(f"**The first {rows} test sentences** ({data.tokenizer.kind} tokens, at most {data.lookback})")
    st.dataframe(table, hide_index=True, width="stretch")


@view_for(PREDICTIONS, "classify" + TEXT)
def confusion_and_mistakes(run: Run, preds: dict, data: SequenceData, key: str) -> None:
    """The confusion matrix, then test sentences the model classified wrongly."""
    classes = classes_of(run, data)
    figures.show(confusion_matrix(preds["y_true"], preds["y_pred"], classes), key=f"{key}.confusion")
    wrong = np.flatnonzero(np.asarray(preds["y_pred"]) != np.asarray(preds["y_true"]))[:EXAMPLES]
    if not len(wrong):
        st.caption("Every test sentence is classified right.")
        return
    test = data.splits["test"]
    st.markdown(f"**Test sentences the model got wrong** (the first {len(wrong)})")
    st.dataframe(
        pd.DataFrame({
            "sentence": [sentence(data, test.x[i]) for i in wrong],
            "true": [classes[int(preds["y_true"][i])] for i in wrong],
            "model": [classes[int(preds["y_pred"][i])] for i in wrong],
        }),
        hide_index=True, width="stretch",
    )


@view_for(SERVING, "classify" + TEXT)
def served_sentence(run: Run, data: SequenceData, i: int, served, stored, key: str) -> list:
    """Test sentence ``i``, and the SavedModel's class probabilities beside those stored at training."""
    classes = classes_of(run, data)
    test = data.splits["test"]
    truth = int(test.y[i])
    st.markdown(f"> {sentence(data, test.x[i])}")
    bars = {"SavedModel": served, **({"stored at training": stored} if stored is not None else {})}
    figures.show(class_probabilities(bars, classes, truth), key=f"{key}.probs")
    return [("True class", classes[truth]), ("SavedModel predicts", classes[int(np.argmax(served))])]


def encoded_sentence(tokenizer: Tokenizer, text: str, longest: int) -> np.ndarray | None:
    """``text``'s ids by the run's tokeniser, trimmed to the run's ``longest`` (saying so); ``None`` after saying
    why when nothing is left of it."""
    ids = np.asarray(tokenizer.encode(text), dtype="int32")
    if not len(ids):
        st.info("Nothing is left of this text after standardisation (punctuation only?): type some words.")
        return None
    if len(ids) > longest:
        st.warning(f"Your sentence is {len(ids)} {tokenizer.kind} tokens long; this run reads {longest}: reading "
                   f"its first {longest}.", icon=":material/content_cut:")
    return ids[:longest]


@view_for(INSPECT_INPUTS, "classify" + TEXT, "label" + TEXT)
def sentence_input(run: Run, data: SequenceData, i: int, key: str) -> InspectInput | None:
    """A text box holding test sentence ``i``; the user's own sentence is encoded with the run's tokeniser."""
    test = data.splits["test"]
    tokenizer = readable_tokenizer(run)
    if tokenizer is None:
        return None
    held_out = sentence(data, test.x[i])
    text = st.text_area(
        f"Sentence to trace (up to {data.lookback} {tokenizer.kind} tokens)", value=held_out, key=key, height=90,
        max_chars=MAX_CHARS,
        help="A test sentence as the run's tokeniser reads it; write your own to see how the model reads it.",
    )
    if not text.strip():
        st.info("The text box is empty: type a sentence, or move the test sequence slider to reload one.")
        return None
    ids = encoded_sentence(tokenizer, text, data.lookback)
    if ids is None:
        return None
    own = text != held_out
    steps = len(ids)
    y_true = None if own else (np.asarray(test.y[i])[:steps] if get_task(data.task).sequence_outputs else test.y[i])
    labels = token_labels(tokenizer, ids)
    unknown = int((ids == UNK_ID).sum())
    st.caption(f"{steps} tokens traced (the padding after them is masked, as in training)"
               + (f", {unknown} of them unknown to the tokeniser ([UNK])" if unknown else "") + ".")
    index = pd.Index([f"{n}: {label}" for n, label in enumerate(labels, start=1)], name="token")
    return InspectInput(
        x=ids, time=labels, time_title="token", time_index=index, y_true=y_true,
        gradient=None if own else (ids, np.asarray(y_true), labels),
        no_gradient="The loss needs the sentence's true class: the gradient through time is shown for test "
                    "sentences, not for your own.",
        about_gradient="the cross-entropy of the true class of this sentence",
    )
