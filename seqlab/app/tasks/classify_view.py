"""The Classify page's parts: text runs, a typed sentence, and each task's answer for it (``ANSWERS``).

A sentence classifier answers with class probabilities, a tagger with a tag
under every token; both then show which tokens made the answer
(``seqlab.inspect.token_attribution``: integrated gradients or occlusion)
drawn on the sentence. The page lists the runs whose task has an ``ANSWERS``
view and puts two of them side by side (an RNN against a CNN, a forward-only
tagger against a bidirectional one), then traces the first through Inspect's
pictures for the same sentence.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import cache, figures, results
from seqlab.app.inspect.inspect_text_view import readable_tokenizer, token_labels
from seqlab.app.tasks.text_classes_view import encoded_sentence
from seqlab.app.inspect.inspect_view import InspectInput
from seqlab.app.task_views import ANSWERS, TEXT, view_for, view_of
from seqlab.data import SequenceData
from seqlab.inspect import METHODS
from seqlab.inspect.attribution import IG_STEPS
from seqlab.plots import class_probabilities
from seqlab.plots.contributions import contribution_chips, contribution_legend, token_contributions
from seqlab.plots.tagged_tokens import tag_legend, tagged_tokens
from seqlab.runs import Run
from seqlab.text import UNK_ID

MAX_CHARS = 2_000

# What each method's numbers are, under the drawing (``{explained}``: "positive", "month at token 7").
METHOD_NOTES = {
    "integrated gradients": (
        "Integrated gradients: each token's embedding times the gradient of p({explained}) averaged along the "
        "straight path from the all-zero embedding to the sentence's ({steps} steps). The contributions add "
        "up to p(x) − p(0) = {probability:.3f} − {reference:.3f} = {difference:+.3f} (the integral's numerical "
        "error: {gap:+.1e})."
    ),
    "occlusion": (
        "Occlusion: how much p({explained}) = {probability:.3f} drops when the token is read as an unknown "
        "word ([UNK]) and the rest as it is. Unlike integrated gradients they need not add up to anything."
    ),
}


@dataclass(frozen=True)
class Sentence:
    """A typed sentence as one run reads it.

    Attributes:
        ids: ``(T,)`` token ids by the run's tokeniser, at most its ``lookback``.
        tokens: one readable label per id.
        truth: the true class (or ``(T,)`` tags) when the text is a test sentence; ``None`` for own text.
    """

    ids: np.ndarray
    tokens: list[str]
    truth: object = None

    @property
    def key(self) -> str:
        """Tells sentences apart in widget keys, so a new sentence starts from its own defaults."""
        return hashlib.sha1(self.ids.tobytes()).hexdigest()[:12]


def answering_runs(runs: list[Run]) -> list[Run]:
    """The runs whose task answers a typed sentence (an ``ANSWERS`` view for their task and data)."""
    return [r for r in runs if _answer_view(r) is not None]


def _answer_view(run: Run):
    return view_of(ANSWERS, results.task_of(run), None, text=results.reads_text(run))


def explain_no_runs() -> None:
    with st.container(border=True):
        st.markdown("#### No text classifier or tagger yet")
        st.markdown(
            "This page reads a sentence through a model trained on text. On the **Train** page pick "
            "**movie_sentiment** (sentences from film reviews, positive or negative) or **written_dates** "
            "(tag every character of a written date with its field), a **GRU** or the **1-D CNN**, and press "
            "**Train**; or run the lesson *sentiment-rnn-vs-cnn*. From a terminal: "
            "`python -m seqlab train --dataset movie_sentiment --model gru --epochs 3`."
        )
        st.page_link("pages/train.py", label="Train a model", icon=":material/model_training:")


def test_sentence(run: Run, data: SequenceData | None, i: int) -> tuple[str, object]:
    """Test sentence ``i`` as the run's tokeniser reads it, and its truth (``("", None)`` without data)."""
    if data is None or not len(data.splits["test"]):
        return "", None
    test = data.splits["test"]
    ids = np.asarray(test.x[i])
    steps = int(test.mask[i].sum()) if test.mask is not None else len(ids)
    return data.tokenizer.decode(ids[:steps]), test.y[i]


def read_sentence(run: Run, text: str, held_out: str, truth) -> Sentence | None:
    """``text`` encoded by the run's tokeniser, trimmed to its window; ``None`` after saying why it cannot be."""
    tokenizer = readable_tokenizer(run)
    if tokenizer is None:
        return None
    ids = encoded_sentence(tokenizer, text, run.meta.lookback)
    if ids is None:
        return None
    if (ids == UNK_ID).all():
        st.warning("Every word of this sentence is unknown to the run's tokeniser ([UNK]): the answer says "
                   "nothing about the words. Use words from the training sentences.", icon=":material/help:")
    own = text != held_out or truth is None
    truth = None if own else (truth if np.ndim(truth) == 0 else np.asarray(truth)[: len(ids)])
    return Sentence(ids, token_labels(tokenizer, ids), truth)


def method_picker(key: str) -> str:
    choice = st.segmented_control(
        "Token contributions by", METHODS, default=METHODS[0], key=key,
        help="Integrated gradients follow the gradient from an empty (all-zero) embedding to the sentence and "
             "add up to the change in probability; occlusion hides one token at a time. Both run the model "
             "as trained.",
    )
    return choice or METHODS[0]


def show_answer(run: Run, sentence: Sentence, method: str, key: str) -> None:
    """The run's answer through its task's ``ANSWERS`` view; a model that cannot run says why."""
    try:
        _answer_view(run)(run, sentence, method, key)
    except ValueError as err:
        st.error(f"This run cannot read the sentence: {err}. Retrain it, or pick another run.")


def contributions(run: Run, sentence: Sentence, method: str, target: int, explained: str, key: str,
                  position: int | None = None) -> None:
    """The sentence coloured by each token's contribution to class (or tag) ``target``, the bars, and what the
    numbers are; a model the method cannot read (``ValueError``) gets the reason instead."""
    try:
        attribution = cache.attribution(run, sentence.ids, target, method, position=position)
    except ValueError as err:
        st.warning(f"No contributions by {method}: {err}", icon=":material/info:")
        return
    st.html(contribution_chips(sentence.tokens, attribution.scores, explained, marked=attribution.position))
    st.html(contribution_legend(explained))
    figures.show(token_contributions(sentence.tokens, attribution.scores, explained, attribution.method),
                    key=f"{key}.bars")
    reference = attribution.reference if attribution.reference is not None else float("nan")
    st.caption(METHOD_NOTES[attribution.method].format(
        explained=explained, steps=IG_STEPS, probability=attribution.probability, reference=reference,
        difference=attribution.probability - reference, gap=attribution.gap or 0.0,
    ))


@view_for(ANSWERS, "classify" + TEXT)
def class_answer(run: Run, sentence: Sentence, method: str, key: str) -> None:
    """Class probabilities, then the tokens' contributions to the class chosen to explain (the predicted one)."""
    classes = results.classes_of(run)
    p = cache.probabilities(run, sentence.ids)
    predicted = int(np.argmax(p))
    st.metric("Predicted class", classes[predicted], f"p = {p[predicted]:.3f}", delta_color="off",
              delta_arrow="off", border=True,
              help=None if sentence.truth is None else f"True class: {classes[int(sentence.truth)]}")
    figures.show(class_probabilities({results.model_title(run.meta.model): p}, classes,
                                        None if sentence.truth is None else int(sentence.truth)),
                    key=f"{key}.probabilities")
    explained = st.selectbox("Explain the class", range(len(classes)), index=predicted,
                             key=f"{key}.explain.{sentence.key}",  # a new sentence: its predicted class again
                             format_func=lambda c: f"{classes[c]} (p = {p[c]:.3f})")
    contributions(run, sentence, method, explained, classes[explained], key)


@view_for(ANSWERS, "label" + TEXT)
def tag_answer(run: Run, sentence: Sentence, method: str, key: str) -> None:
    """The predicted tag under every token, then which tokens decided one token's tag."""
    tags = results.classes_of(run)
    p = cache.probabilities(run, sentence.ids)  # (T, C)
    predicted = p.argmax(axis=-1)
    st.html(tagged_tokens(sentence.tokens, predicted, tags, sentence.truth, p.max(axis=-1)))
    st.html(tag_legend(tags))
    if sentence.truth is not None:
        right = int((predicted == sentence.truth).sum())
        st.caption(f"{right} of {len(predicted)} tokens tagged right ({100 * right / len(predicted):.1f} %).")
    wrong = np.flatnonzero(predicted != sentence.truth) if sentence.truth is not None else []
    j = st.select_slider(
        "Explain the tag of token", options=list(range(len(sentence.ids))),
        value=int(wrong[0]) if len(wrong) else len(sentence.ids) // 2, key=f"{key}.token.{sentence.key}",
        format_func=lambda k: f"{k + 1}: {sentence.tokens[k]}",
        help="Which tokens made the model give this token its tag? A forward-only model has read only the "
             "tokens up to it: every later token contributes exactly 0. A bidirectional one reads both ways.",
    )
    tag = int(predicted[j])
    contributions(run, sentence, method, tag, f"{tags[tag]} at token {j + 1}", key, position=j)


def trace_input(sentence: Sentence) -> InspectInput:
    """The sentence as Inspect's pictures read it: its tokens on the time axis, the loss when its truth is known."""
    index = pd.Index([f"{n}: {label}" for n, label in enumerate(sentence.tokens, start=1)], name="token")
    return InspectInput(
        x=sentence.ids, time=sentence.tokens, time_title="token", time_index=index, y_true=sentence.truth,
        gradient=None if sentence.truth is None else (sentence.ids, np.asarray(sentence.truth), sentence.tokens),
        no_gradient="The loss needs the sentence's truth: the gradient through time is shown for test "
                    "sentences, not for your own.",
        about_gradient="the cross-entropy of the truth of this sentence",
    )
