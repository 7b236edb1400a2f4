"""Inspect for token-id (language) runs: the input is text, the time steps are its tokens.

``text_input`` is the language task's ``INSPECT_INPUTS`` reader: a text box
prefilled with a held-out test window (decoded by the run's own tokeniser)
that the user may rewrite; the text is encoded with the same tokeniser. The
outcome view shows the model's next-token predictions after the text.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import cache
from seqlab.app.inspect.inspect_view import InspectInput
from seqlab.app.tasks.language_view import window_scores
from seqlab.app.task_views import INSPECT_INPUTS, OUTCOMES, view_for
from seqlab.data import SequenceData
from seqlab.decoding.ranking import top_ids
from seqlab.tasks.language.generate import prompt_ids
from seqlab.plots.generated import shown_token
from seqlab.runs import Run
from seqlab.text import UNK_ID, Tokenizer

TOP_NEXT = 5
MAX_CHARS = 10_000  # the text box's limit; the trace reads at most the run's window of tokens anyway


def token_labels(tokenizer: Tokenizer, ids) -> list[str]:
    """One readable label per id: its text, spaces as ␣ and line ends as \\n."""
    vocab = tokenizer.vocab
    return [shown_token(vocab[int(i)]) for i in ids]


def readable_tokenizer(run: Run) -> Tokenizer | None:
    """The run's tokeniser, or ``None`` after saying why it cannot be read."""
    try:
        return cache.tokenizer(run)
    except ValueError as err:
        st.error(f"Cannot read this run's tokeniser: {err}")
        return None


@view_for(INSPECT_INPUTS, "language")
def text_input(run: Run, data: SequenceData, i: int, key: str) -> InspectInput | None:
    """A text box holding held-out window ``i``; the user's own text is encoded with the run's tokeniser."""
    test = data.splits["test"]
    tokenizer = readable_tokenizer(run)
    if tokenizer is None:
        return None
    window = np.asarray(test.x[i], dtype="int32")  # (T,) ids of the held-out text
    held_out = tokenizer.decode(window)
    longest = int(window.shape[0])
    text = st.text_area(
        f"Text to trace (up to {longest} {tokenizer.kind} tokens)", value=held_out, key=key, height=110,
        max_chars=MAX_CHARS,
        help="A held-out test window, as the run's tokeniser reads it. Write your own text to see how the model "
             f"reads it; it is encoded with the run's {tokenizer.kind} tokeniser (vocabulary of "
             f"{tokenizer.vocab_size:,}).",
    )
    if not text.strip():
        st.info("The text box is empty: type some text to trace, or move the test sequence slider to reload "
                "a held-out window.")
        return None
    if text == held_out:  # the window itself: its ids exactly, and the true next token at every step
        ids, y_true = window, np.asarray(test.y[i])
    else:
        try:
            ids = np.asarray(prompt_ids(tokenizer, text), dtype="int32")
        except ValueError as err:
            st.error(f"Cannot trace this text: {err}")
            return None
        if len(ids) > longest:
            st.warning(f"Your text is {len(ids)} tokens long; this run reads windows of {longest}: "
                       f"tracing its last {longest} tokens.", icon=":material/content_cut:")
            ids = ids[-longest:]
        y_true = None
    unknown = int((ids == UNK_ID).sum())
    labels = token_labels(tokenizer, ids)
    st.caption(f"{len(ids)} tokens traced" + (f", {unknown} of them unknown to the tokeniser ([UNK])" if unknown
                                                   else "") + ": they label the time axis below.")
    index = pd.Index([f"{n}: {label}" for n, label in enumerate(labels, start=1)], name="token")
    about = "the cross-entropy of predicting each next token of " + ("this window" if y_true is not None
                                                                     else "your text")
    if y_true is not None:
        gradient = (ids, y_true, labels)
    elif len(ids) > 1:  # own text: its own next tokens are the targets; the last one has none
        gradient = (ids[:-1], ids[1:], labels[:-1])
    else:
        gradient = None
    return InspectInput(
        x=ids, time=labels, time_title="token", time_index=index, y_true=y_true, gradient=gradient,
        no_gradient="Your text is one token: it has no next token to predict, so there is no loss to "
                    "differentiate. Write at least two tokens.",
        about_gradient=about,
    )


@view_for(OUTCOMES, "language")
def next_token_outcome(run: Run, data: SequenceData, outputs, y_true) -> None:
    """The most probable next tokens after the text (top 5 at the last position), and the window's score."""
    probabilities = np.asarray(outputs, dtype="float64")  # (T, V): p(x_{t+1} | x_<=t) at every step
    vocab = cache.tokenizer(run).vocab
    last = probabilities[-1]
    top = top_ids(last[None], TOP_NEXT)[0]  # the decoders' ranking, ties to the lower id
    st.markdown(f"**Next token after the text** (top {len(top)})")
    st.dataframe(
        pd.DataFrame({"token": [shown_token(vocab[k]) for k in top], "p": last[top]}),
        hide_index=True, width="stretch",
        column_config={"p": st.column_config.ProgressColumn("probability", min_value=0.0, max_value=1.0,
                                                            format="%.3f")},
    )
    if y_true is not None:
        right, cross_entropy = window_scores(probabilities, y_true)
        truth = int(np.asarray(y_true)[-1])
        st.caption(f"The held-out text goes on with “{shown_token(vocab[truth])}” (p = {last[truth]:.3f}). "
                   f"Most probable next token right at {right} of {len(probabilities)} positions; "
                   f"cross-entropy {cross_entropy:.3g} nats per token.")
