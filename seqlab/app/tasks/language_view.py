"""The dashboard's views of language data and runs: the text and its tokens, what a run predicts, a greedy sample."""

from __future__ import annotations

import numpy as np
import streamlit as st

from seqlab.app import cache, figures
from seqlab.app.task_views import DATA_PREVIEWS, OUTPUT_TEXT, PLAN_TEXT, PREDICTIONS, SERVING, view_for
from seqlab.app.tasks.text_stats_view import corpus_section, merges_section, sweep_section, tokenizers_section
from seqlab.data import DatasetInfo, SequenceData
from seqlab.data.text_windows import split_ids, token_counts
from seqlab.plots import token_frequencies
from seqlab.runs import Run

SAMPLE_TOKENS = 80
PREVIEW_TOKENS = 400
TOP_TOKENS = 30


@view_for(DATA_PREVIEWS, "language")
def text_preview(info: DatasetInfo, data: SequenceData) -> None:
    """The corpus in numbers, its most frequent training tokens and the start of the training text as the
    tokeniser cuts it; then one sentence under every tokeniser, vocabulary sizes and BPE's first merges."""
    st.subheader("The corpus")
    corpus_section(data)
    tokenizer = data.tokenizer
    train = split_ids(data, "train")
    counts = token_counts(data)
    top = np.argsort(-counts, kind="stable")[:TOP_TOKENS]
    vocab = tokenizer.vocab
    figures.show(
        token_frequencies([vocab[i] for i in top], (counts[top] / counts.sum()).tolist(),
                          title=f"The {len(top)} most frequent of {tokenizer.vocab_size:,} {tokenizer.kind} tokens "
                                "(training text)"),
        key="data.preview",
    )  # fmt: skip
    st.markdown(f"**The training text** (its first {PREVIEW_TOKENS} tokens, after standardisation):")
    st.code(tokenizer.decode(train[:PREVIEW_TOKENS]), language=None)
    st.caption(
        f"{len(train):,} training and {len(split_ids(data, 'val')):,} held-out tokens: the first "
        "90 % of the text trains (the tokeniser too), the last 10 % validates and tests."
    )
    st.subheader("One sentence, three tokenisers")
    tokenizers_section(data)
    st.subheader("Vocabulary size: unknown tokens and sequence length")
    sweep_section(data)
    st.subheader("The first BPE merges")
    merges_section(data)


@view_for(PREDICTIONS, "language")
def greedy_sample_view(run: Run, preds: dict, data: SequenceData, key: str) -> None:
    """The start of the held-out text, its true continuation, and the model's most probable one."""
    tokenizer, test = data.tokenizer, data.splits["test"]
    held_out = split_ids(data, "val")  # the test split's text
    after = int(test.origin[0]) + data.lookback
    prompt = tokenizer.decode(test.x[0])
    truth = tokenizer.decode(held_out[after : after + SAMPLE_TOKENS])
    try:
        sample = cache.greedy_text(run, prompt, SAMPLE_TOKENS)
    except ValueError as err:
        st.warning(f"Cannot generate text with this run: {err}")
        return
    st.markdown(f"**Greedy sample** ({SAMPLE_TOKENS} tokens, always the most probable) after held-out text:")
    st.code(prompt, language=None)
    left, right = st.columns(2)
    with left:
        st.markdown("Model")
        st.code(sample, language=None)
    with right:
        st.markdown("The text itself")
        st.code(truth, language=None)
    st.caption("Greedy decoding repeats itself easily; sample with a temperature from the command line "
               "(`python -m seqlab generate RUN_ID --prompt ...`).")


def window_scores(probabilities, y_true) -> tuple[int, float]:
    """How many next tokens of one window ``(T, V)`` are the most probable, and its cross-entropy in nats."""
    probabilities, y_true = np.asarray(probabilities), np.asarray(y_true, dtype=int)
    p_true = np.take_along_axis(probabilities, y_true[:, None], axis=-1)[:, 0]
    return int((probabilities.argmax(axis=-1) == y_true).sum()), float(-np.mean(np.log(np.clip(p_true, 1e-7, 1))))


@view_for(SERVING, "language")
def served_window(run: Run, data: SequenceData, i: int, served, stored, key: str) -> list:
    """The test window's text, the SavedModel's most probable next token at every position, and its score."""
    tokenizer, window = data.tokenizer, data.splits["test"]
    right, cross_entropy = window_scores(served, window.y[i])
    left, mid = st.columns(2)
    with left:
        st.markdown("The window's next tokens")
        st.code(tokenizer.decode(window.y[i]), language=None)
    with mid:
        st.markdown("SavedModel's most probable next tokens")
        st.code(tokenizer.decode(np.asarray(served).argmax(axis=-1)), language=None)
    return [("Next tokens right", f"{right} of {len(window.y[i])}"), ("Cross-entropy", f"{cross_entropy:.3g} nats")]


view_for(OUTPUT_TEXT, "language")(lambda meta: "the next token at every step")


@view_for(PLAN_TEXT, "language")
def _language_plan(facts: dict, target: str, features: str) -> str:
    return f"Read windows of {facts['lookback']} tokens; predict the next token at every position."
