"""Lesson views for the language, attention and Transformer lessons (see ``seqlab.app.lessons.lesson_views``).

Each draws the lesson's finished runs through the dashboard's own parts:
tokens and embedding neighbours (``embeddings_view``), per-token
contributions (``classify_view``), translations with their attention map
(``translate_view``, ``pairs_view``), attention per head and the notes'
walk-through (``attention_view``, ``transformer_lesson``), positions
(``positional_view``), BERT's masking and its blanks (``fill_in_view``),
and generation (``generate_view``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import cache
from seqlab.app.tasks import classify_view, fill_in_view, generate_view, translate_view
from seqlab.app.inspect import embeddings_view
from seqlab.app.inspect.attention_view import attention_view
from seqlab.app.lessons.lesson_views import lesson_view, run_dataset
from seqlab.app.run_table import run_title
from seqlab.app.tasks.pairs_view import translations_view
from seqlab.app.inspect.positional_view import positional_lesson
from seqlab.app.lessons.transformer_lesson import notes_walkthrough
from seqlab.data.bert_masking import MASK_SHARE, RANDOM_SHARE, RATE, mask_tokens
from seqlab.data.bert_pretraining import CLS_ID, FIRST_WORD_ID, MASK_ID, SEP_ID
from seqlab.inspect.embeddings import cosine_neighbours
from seqlab.lessons.language import BLANKS, CACHE_TOKENS, PROMPT
from seqlab.lessons.measures import tokens_per_second
from seqlab.runs import Run
from seqlab.text import UNK_ID

SENTENCE = "not a great film , but the acting is wonderful ."
NEIGHBOURS = 6
MASKED_COPIES = 2_000  # the sentence masked this many times: the shares settle near 15 %, 80 / 10 / 10 %


def heading(run: Run, runs: list[Run]) -> None:
    st.markdown(f"##### {run_title(run, runs)}")


# ---------------------------------------------------------------- tokenisation and embeddings


@lesson_view("tokens-and-neighbours")
def tokens_and_neighbours(runs: list[Run], key: str) -> None:
    """One sentence cut by each run's tokeniser, and a chosen token's nearest neighbours in that run's embedding."""
    text = st.text_input("Sentence", SENTENCE, key=f"{key}.text", max_chars=classify_view.MAX_CHARS)
    if not text.strip():
        st.info("The sentence box is empty: type a sentence.")
        return
    for column, run in zip(st.columns(len(runs), gap="medium"), runs):
        with column:
            tokenizer = cache.tokenizer(run)
            ids = tokenizer.encode(text)
            st.markdown(f"##### {tokenizer.kind} tokens")
            st.caption(f"{len(ids)} tokens from a vocabulary of {tokenizer.vocab_size:,}")
            st.markdown(" ".join(embeddings_view.token_code(t) for t in tokenizer.tokens(text)))
            found = embeddings_view.matrices(run)
            if not found:
                st.info("This run's model has no embedding to look into.")
                continue
            matrix = found[0].matrix
            known = [i for i in dict.fromkeys(ids) if i != UNK_ID and np.linalg.norm(matrix[i]) > 0]
            if not known:
                st.info("No token of the sentence is known to this run: nothing to look up.")
                continue
            texts = tokenizer.vocab
            longest = max(known, key=lambda i: (len(texts[i].strip()), -known.index(i)))  # a word, not a comma
            token = st.selectbox("Neighbours of", known, index=known.index(longest), key=f"{key}.token.{run.run_id}",
                                 format_func=lambda i: embeddings_view.token_label(texts, i))
            near, cosines = cosine_neighbours(matrix, token, NEIGHBOURS + 1)
            embeddings_view.neighbours_table(near, cosines, embeddings_view.tokens(run, found[0]),
                                             key=f"{key}.neighbours.{run.run_id}")


# ---------------------------------------------------------------- RNN against CNN


@lesson_view("contributions-side-by-side")
def contributions_side_by_side(runs: list[Run], key: str) -> None:
    """A typed sentence through every run: its answer and each token's contribution to it."""
    text = st.text_area("Sentence", SENTENCE, key=f"{key}.text", height=70, max_chars=classify_view.MAX_CHARS)
    if not text.strip():
        st.info("The sentence box is empty: type a sentence.")
        return
    method = classify_view.method_picker(f"{key}.method")
    for column, run in zip(st.columns(len(runs), gap="large"), runs):
        with column:
            heading(run, runs)
            sentence = classify_view.read_sentence(run, text, "", None)
            if sentence is not None:
                classify_view.show_answer(run, sentence, method, key=f"{key}.answer.{run.run_id}")


# ---------------------------------------------------------------- translations and their attention


def crossing_pair(data) -> int:
    """The first test pair whose source has a hyphen (“seventy-three”: German writes the units first), else 0."""
    if data is None:
        return 0
    sources = data.frame["source"].iloc[data.splits["test"].origin].astype(str)
    return next((i for i, source in enumerate(sources) if "-" in source), 0)


@lesson_view("translation-attention")
def translation_attention(runs: list[Run], key: str) -> None:
    """A typed source through every run (greedy), with its attention map; then the held-out numbers it missed."""
    data = run_dataset(runs[0])
    source = translate_view.typed_text(runs[0], data, crossing_pair(data), key)
    if source is None:
        return
    for column, run in zip(st.columns(len(runs), gap="large"), runs):
        with column:
            heading(run, runs)
            try:
                greedy, _ = cache.translations(run, source.text, None, 1, 0.0)
            except ValueError as err:
                st.error(f"Cannot translate this source: {err}")
                continue
            right = "" if source.reference is None else (" ✓" if greedy.text == source.reference else " ✗")
            st.metric("Greedy translation", (greedy.text or "(empty)") + right, border=True,
                      help=None if source.reference is None else f"Reference: {source.reference}")
            translate_view.attention_section(run, greedy, key=f"{key}.{run.run_id}")
            if data is not None:
                translations_view(run, cache.predictions(run), data, key=f"{key}.test.{run.run_id}")


# ---------------------------------------------------------------- self-attention and multi-head


@lesson_view("attention-heads")
def attention_heads(runs: list[Run], key: str) -> None:
    """A typed sentence through a Transformer's heads (Inspect's attention view); then the notes' walk-through."""
    run = runs[-1]
    text = st.text_input("Sentence (short: the walk-through writes every score)", "the acting is wonderful",
                         key=f"{key}.text", max_chars=classify_view.MAX_CHARS)
    data = run_dataset(run)
    sentence = classify_view.read_sentence(run, text, "", None) if text.strip() else None
    if sentence is None or data is None:
        st.info("Type a sentence to look inside the model.")
    else:
        inp = classify_view.trace_input(sentence)
        try:
            attention_view(run, data, cache.run_trace(run, inp.x, inp.time), inp)
        except (ValueError, OSError, TypeError, KeyError) as err:
            st.error(f"Cannot trace this run: {err}. Train the lesson again.")
    st.markdown("#### The notes' numbers: scaled dot-product attention on “Hello how are”")
    notes_walkthrough(f"{key}.notes")


# ---------------------------------------------------------------- positional encoding


@lesson_view("positions")
def positions(runs: list[Run], key: str) -> None:
    """The encoding and "Live to Work" against "Work to Live"; then the runs without and with positions."""
    positional_lesson(key=f"{key}.encoding")
    st.markdown("#### The same Transformer trained without and with positions")
    translation_attention(runs, f"{key}.runs")


# ---------------------------------------------------------------- BERT's masking


def masking_shares(run: Run, ids: list[int], seed: int) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """The pair ``[CLS] ids [SEP]`` masked ``MASKED_COPIES`` times by BERT's own function: the first copy's
    masked ids and chosen positions, and the shares measured over all copies."""
    row = np.array([CLS_ID, *ids, SEP_ID], dtype="int32")
    copies = np.repeat(row[None], MASKED_COPIES, axis=0)
    candidates = copies >= FIRST_WORD_ID  # real words: not [CLS], [SEP], [MASK] or padding
    masked, chosen = (np.asarray(a) for a in mask_tokens(
        copies, candidates, seed, vocab_size=cache.tokenizer(run).vocab_size, mask_id=MASK_ID,
        first_word_id=FIRST_WORD_ID))
    picked = chosen.sum()
    became_mask = (masked[chosen] == MASK_ID).sum()
    kept = (masked[chosen] == copies[chosen]).sum()
    shares = pd.DataFrame({
        "share": ["chosen of the words", "of the chosen: [MASK]", "of the chosen: a random word",
                  "of the chosen: kept"],
        "BERT": [RATE, MASK_SHARE, RANDOM_SHARE, 1 - MASK_SHARE - RANDOM_SHARE],
        "measured": [picked / max(candidates.sum(), 1), became_mask / max(picked, 1),
                     (picked - became_mask - kept) / max(picked, 1), kept / max(picked, 1)],
    })  # fmt: skip
    return masked[0], chosen[0], shares


def masking_draw(vocab: list[str], ids: list[int], masked: np.ndarray, chosen: np.ndarray) -> pd.DataFrame:
    """One draw of the masking as rows under the sentence's tokens: the token, whether it was chosen, what the
    model reads there. Text in every cell: a column of the transposed table holds one token's three values, and
    Arrow refuses a column of words and booleans."""
    return pd.DataFrame({
        "token": [vocab[i] for i in [CLS_ID, *ids, SEP_ID]],
        "chosen": ["✓" if c else "" for c in chosen],
        "the model reads": [vocab[int(i)] for i in masked],
    }).T


@lesson_view("bert-masking")
def bert_masking(runs: list[Run], key: str) -> None:
    """A sentence masked as in pre-training (one draw, and the shares over many), then the run fills blanks."""
    run = runs[-1]
    tokenizer = cache.tokenizer(run)
    text = st.text_input("Sentence", SENTENCE, key=f"{key}.text", max_chars=classify_view.MAX_CHARS)
    ids = tokenizer.encode(text)
    if not ids:
        st.info("The sentence has no tokens: type a sentence.")
        return
    seed = int(st.number_input("Draw (seed)", 0, 10_000, 0, key=f"{key}.seed",
                               help="Pre-training draws a new masking for every batch: change the seed to see "
                                    "another."))
    masked, chosen, shares = masking_shares(run, ids, seed)
    st.dataframe(masking_draw(tokenizer.vocab, ids, masked, chosen), width="stretch", key=f"{key}.draw")
    st.dataframe(shares, hide_index=True, width="stretch", key=f"{key}.shares",
                 column_config={c: st.column_config.NumberColumn(format="percent") for c in ("BERT", "measured")})
    st.caption(f"The same sentence masked {MASKED_COPIES:,} times by `seqlab.data.bert_masking.mask_tokens`, the "
               "function the training step calls: the loss is taken on the chosen words only, whatever they became.")
    st.markdown("#### Fill in the blanks")
    top_k = fill_in_view.top_k_input(f"{key}.top_k")
    for column, each in zip(st.columns(len(runs), gap="large"), runs):
        with column:
            heading(each, runs)
            example = BLANKS.get(each.spec["dataset"], fill_in_view.EXAMPLE)
            blanks = st.text_input("Sentence with [MASK]", example, key=f"{key}.blanks.{each.run_id}",
                                   max_chars=2000)
            fill_in_view.show_guesses(each, blanks, top_k, key=f"{key}.guesses.{each.run_id}")
    st.caption("In a date one word fits each blank and the digits say which: change them and the guess follows. "
               "In a review many words fit, and a minute of pre-training has learned which are frequent.")


# ---------------------------------------------------------------- GPT generation


@lesson_view("gpt-generation")
def gpt_generation(runs: list[Run], key: str) -> None:
    """Samples under the decoding settings, then the key/value cache timed against recomputing the context."""
    run = runs[-1]
    prompt = st.text_area("Prompt", PROMPT, key=f"{key}.prompt", max_chars=2000, height=70)
    settings = generate_view.controls(key=f"{key}.decoding")
    generate_view.legend()
    generate_view.show_samples(run, prompt, settings)
    st.markdown("#### What the key/value cache saves")
    if st.button(f"Time {CACHE_TOKENS} greedy tokens with and without the cache", key=f"{key}.time"):
        try:
            rates = {cached: tokens_per_second(cache.model(run), cache.tokenizer(run), prompt, cached, CACHE_TOKENS)
                     for cached in (True, False)}
        except ValueError as err:
            st.error(f"Cannot generate from this prompt: {err}")
            return
        st.dataframe(pd.DataFrame({
            "generation": ["key/value cache: one step per token", "recompute the whole context every token"],
            "tokens per second": [rates[True], rates[False]],
        }), hide_index=True, width="stretch", key=f"{key}.rates",
            column_config={"tokens per second": st.column_config.NumberColumn(format="%.0f")})  # fmt: skip
        st.caption(f"The cache ran at {rates[True] / rates[False]:.1f} times the rate of recomputing here: with it "
                   "each new token runs one query through every block against the stored keys and values; without "
                   "it every token recomputes the keys and values of the whole context.")
