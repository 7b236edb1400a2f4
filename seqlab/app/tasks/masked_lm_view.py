"""The dashboard's views of a BERT pre-training run (``masked_lm``): test guesses, serving, Inspect's input and outcome.

A row of the task is ``[CLS] A [SEP] B [SEP]`` with 15 % of its words
hidden; ``y[:, 0]`` is 1 when B follows A, ``y[:, t]`` the hidden word at
position t (0 where nothing is hidden). The model's one output ``(T, V)``
holds the next-sentence probabilities at ``[CLS]`` and a word distribution
everywhere else.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app.inspect.inspect_text_view import readable_tokenizer, token_labels
from seqlab.app.inspect.inspect_view import InspectInput
from seqlab.app.task_views import (
    INSPECT_INPUTS,
    OUTCOMES,
    OUTPUT_TEXT,
    PLAN_TEXT,
    PREDICTIONS,
    SERVING,
    view_for,
)
from seqlab.data import SequenceData
from seqlab.data.bert_pretraining import CLS_ID, FIRST_WORD_ID, MASK_ID, SEP_ID
from seqlab.tasks.masked_lm.fill_in import BLANK
from seqlab.runs import Run
from seqlab.text import PAD_ID, Tokenizer

EXAMPLES = 12  # test pairs listed
TOP = 5


def _pair_text(tokenizer: Tokenizer, ids) -> str:
    """A row's tokens as text, [PAD] left out (the hidden words show as [MASK] or their stand-in)."""
    vocab = tokenizer.vocab
    return " ".join(vocab[int(i)] for i in ids if int(i) != PAD_ID)


def _hidden(row) -> np.ndarray:
    """The positions of a row's hidden words (``y[t] > 0`` after the ``[CLS]`` column)."""
    return np.flatnonzero(np.asarray(row)[1:] != PAD_ID) + 1


@view_for(PREDICTIONS, "masked_lm")
def guesses_view(run: Run, preds: dict, data: SequenceData, key: str) -> None:
    """Test pairs as the model read them, the hidden words, its first guesses, and next-sentence prediction."""
    test, vocab = data.splits["test"], data.tokenizer.vocab
    y, guess, is_next = preds["y_true"], preds["y_pred"], preds["is_next"]
    rows = []
    # a short pair may have no word chosen (15 % of its words, none of them [UNK]): nothing to show there
    hidden = [(i, _hidden(y[i])) for i in range(len(y))]
    for i, where in [(i, where) for i, where in hidden if where.size][:EXAMPLES]:
        rows.append({
            "pair as read": _pair_text(data.tokenizer, test.x[i]),
            "hidden words": " · ".join(vocab[int(y[i, t])] for t in where),
            "model's guesses": " · ".join(vocab[int(guess[i, t])] for t in where),
            "right": f"{int((guess[i, where] == y[i, where]).sum())} of {len(where)}",
            "B follows A": bool(y[i, 0]),
            "p(B follows A)": float(is_next[i]),
        })
    st.markdown(f"**The first {len(rows)} test pairs with a hidden word**: the words hidden from the model and its "
                "most probable guess for each, in order")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key=f"{key}.guesses",
                 column_config={
                     # widths in pixels: the pair (the longest text) leaves the guesses room beside it
                     "pair as read": st.column_config.TextColumn(width=300),
                     "hidden words": st.column_config.TextColumn(width=180),
                     "model's guesses": st.column_config.TextColumn(width=190),
                     "right": st.column_config.TextColumn(width="small"),
                     "B follows A": st.column_config.CheckboxColumn(width="small"),
                     "p(B follows A)": st.column_config.ProgressColumn(
                         "p(B follows A)", min_value=0.0, max_value=1.0, format="%.2f", width=110)})
    st.page_link("pages/fill_in.py", label="Hide words of your own on Fill in", icon=":material/edit:")


@view_for(SERVING, "masked_lm")
def served_pair(run: Run, data: SequenceData, i: int, served, stored, key: str) -> list:
    """Test pair ``i``: the SavedModel's guesses for its hidden words, and its next-sentence probability."""
    y, vocab = data.splits["test"].y[i], data.tokenizer.vocab
    served = np.asarray(served)
    where = _hidden(y)
    words = served[where][:, FIRST_WORD_ID:].argmax(axis=-1) + FIRST_WORD_ID  # a guess is a word, not a special
    st.markdown(f"> {_pair_text(data.tokenizer, data.splits['test'].x[i])}")
    return [("Hidden words", " · ".join(vocab[int(y[t])] for t in where)),
            ("SavedModel's guesses", " · ".join(vocab[int(w)] for w in words)),
            ("Right", f"{int((words == y[where]).sum())} of {len(where)}"),
            ("p(B follows A)", f"{float(served[0, 1]):.2f} (truth: {'yes' if y[0] else 'no'})")]


view_for(OUTPUT_TEXT, "masked_lm")(lambda meta: "the hidden word at every masked position; at [CLS], whether B "
                                                "follows A")


@view_for(PLAN_TEXT, "masked_lm")
def _pretraining_plan(facts: dict, target: str, features: str) -> str:
    return (f"Read pairs [CLS] A [SEP] B [SEP] of up to {facts['lookback']} tokens with 15 % of the words hidden "
            "(drawn anew every batch); guess each hidden word, and whether B follows A.")


def _encode(tokenizer: Tokenizer, text: str) -> list[int]:
    """``text``'s ids, every ``[MASK]`` read as the mask token (the tokeniser alone would split it)."""
    ids = []
    for i, piece in enumerate(BLANK.split(text)):
        ids += ([MASK_ID] if i else []) + tokenizer.encode(piece)
    return ids


@view_for(INSPECT_INPUTS, "masked_lm")
def pair_input(run: Run, data: SequenceData, i: int, key: str) -> InspectInput | None:
    """A text box holding test pair ``i`` as the model read it; own text is read as ``[CLS] text [SEP]``."""
    tokenizer = readable_tokenizer(run)
    if tokenizer is None:
        return None
    test = data.splits["test"]
    row = np.asarray(test.x[i], dtype="int32")
    real = row[row != PAD_ID]
    shown = _pair_text(tokenizer, real[1:-1])  # without the [CLS] and the last [SEP]: the box's text
    longest = int(row.shape[0])
    text = st.text_area(f"Pair to trace (up to {longest - 2} {tokenizer.kind} tokens; [MASK] is read as the "
                        "mask)", value=shown, key=key, height=110,
                        help="A test pair as the model read it, its hidden words as [MASK] or their stand-ins. "
                             "Write your own text to see where each head of each layer looks.")
    if not text.strip():
        st.info("The text box is empty: type some text to trace, or move the test sequence slider.")
        return None
    if text == shown:
        ids, y_true = real, np.asarray(test.y[i])[: len(real)]
    else:
        words = _encode(tokenizer, text)
        if len(words) > longest - 2:
            st.warning(f"Your text is {len(words)} tokens long; this run reads {longest - 2} between [CLS] and "
                       f"[SEP]: tracing its first {longest - 2}.", icon=":material/content_cut:")
            words = words[: longest - 2]
        ids, y_true = np.asarray([CLS_ID, *words, SEP_ID], dtype="int32"), None
    labels = token_labels(tokenizer, ids)
    index = pd.Index([f"{n}: {label}" for n, label in enumerate(labels, start=1)], name="token")
    return InspectInput(x=ids, time=labels, time_title="token", time_index=index, y_true=y_true,
                        no_gradient="The gradient through time follows a recurrent state; a Transformer has none.")


@view_for(OUTCOMES, "masked_lm")
def guesses_outcome(run: Run, data: SequenceData, outputs, y_true) -> None:
    """The next-sentence probability; for a test pair, the model's top guesses at its hidden words."""
    probabilities, vocab = np.asarray(outputs, dtype="float64"), data.tokenizer.vocab
    st.metric("p(B follows A)", f"{probabilities[0, 1]:.2f}", border=True,
              help="The next-sentence head at [CLS]" + ("" if y_true is None else
                                                        f"; truth: {'yes' if y_true[0] else 'no'}"))
    if y_true is None:
        st.caption("Your own blanks get the model's guesses on the Fill in page.")
        return
    rows = []
    for t in _hidden(y_true):
        best = np.argsort(-probabilities[t, FIRST_WORD_ID:])[:TOP] + FIRST_WORD_ID
        rows.append({"position": int(t) + 1, "hidden word": vocab[int(y_true[t])],
                     "guesses": " · ".join(f"{vocab[b]} ({probabilities[t, b]:.2f})" for b in best)})
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
