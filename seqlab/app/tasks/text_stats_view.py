"""The Data page's text statistics: the corpus in numbers, one sentence under three tokenisers,
vocabulary size against unknown tokens and length, and BPE's first merges.

Every tokeniser here is fitted on the dataset's training text with its standardisation
options, as a run's would be. The texts come from the dataset itself (its character
ids decoded), so an uploaded file or a shortened corpus is measured as it trains.
"""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from seqlab.app import cache
from seqlab.data import SequenceData
from seqlab.data.text_windows import TEXT_CHOICES, make_tokenizer, split_ids
from seqlab.plots import token_chips, vocabulary_sweep_chart
from seqlab.plots.generated import shown_token
from seqlab.text import Standardize
from seqlab.text.statistics import (
    char_text,
    example_sentence,
    merge_counts,
    text_statistics,
    token_pieces,
    unseen_shares,
    vocabulary_sweep,
)

MERGES_SHOWN = 30
TOKENIZER_TITLES = {"char": "Characters", "word": "Words", "bpe": "BPE sub-words"}


def _key(data: SequenceData) -> tuple[str, str]:
    return data.name, json.dumps(data.options, sort_keys=True)


def _standardize(options: dict) -> Standardize:
    return Standardize(options["lowercase"], options["strip_punctuation"], options["collapse_whitespace"])


@st.cache_data(show_spinner=False, max_entries=8)
def _texts(name: str, options_json: str) -> tuple[str, str]:
    """The standardised training and held-out texts, from the dataset read with character tokens."""
    data = cache.dataset(name, {**json.loads(options_json), "tokenizer": "char"})
    return tuple(char_text(data.tokenizer, split_ids(data, split)) for split in ("train", "val"))


@st.cache_resource(show_spinner=False, max_entries=24)
def _tokenizer(name: str, options_json: str, kind: str):
    """The ``kind`` tokeniser fitted on the training text, at the dataset's vocabulary size."""
    options = json.loads(options_json)
    return make_tokenizer(kind, options["vocab_size"], _standardize(options)).fit(_texts(name, options_json)[0])


@st.cache_data(show_spinner="Fitting word and BPE tokenisers of every size…", max_entries=8)
def _sweep(name: str, options_json: str) -> pd.DataFrame:
    train, held_out = _texts(name, options_json)
    return vocabulary_sweep(train, held_out, _standardize(json.loads(options_json)))


@st.cache_data(show_spinner=False, max_entries=8)
def _merges(name: str, options_json: str) -> pd.DataFrame:
    return merge_counts(_tokenizer(name, options_json, "bpe"), _texts(name, options_json)[0], MERGES_SHOWN)


def corpus_section(data: SequenceData) -> None:
    """The training and held-out texts in numbers."""
    train, held_out = _texts(*_key(data))
    stats = {"training text": text_statistics(train), "held-out text": text_statistics(held_out)}
    rows = {
        "characters": lambda s: f"{s.characters:,}",
        "words": lambda s: f"{s.words:,}",
        "non-empty lines": lambda s: f"{s.lines:,}",
        "distinct characters": lambda s: f"{s.distinct_characters:,}",
        "distinct words": lambda s: f"{s.distinct_words:,}",
        "words seen once": lambda s: f"{s.words_seen_once:,}",
        "characters per word (mean)": lambda s: f"{s.characters_per_word:.2f}",
        "words per line (mean)": lambda s: f"{s.words_per_line:.1f}",
    }
    table = pd.DataFrame({column: [show(s) for show in rows.values()] for column, s in stats.items()}, index=list(rows))
    chars, words = unseen_shares(train, held_out)
    table.loc["unseen in training"] = ["", f"{100 * chars:.2f} % of characters, {100 * words:.1f} % of words"]
    st.table(table)
    st.caption(
        "After the dataset's standardisation. Words here are runs of letters and digits (punctuation is not "
        "counted); a word tokeniser also makes each punctuation mark a token. Words seen once are the long "
        "tail that a word vocabulary misses and sub-words cover."
    )


def tokenizers_section(data: SequenceData) -> None:
    """One sentence cut by the character, word and BPE tokenisers, side by side."""
    key = _key(data)
    sentence = st.text_input(
        "A sentence to tokenise", value=example_sentence(_texts(*key)[1]), key=f"data.sentence.{data.name}",
        help="The default is a line of the held-out text. Every tokeniser was fitted on the training text only.",
    )  # fmt: skip
    fitted, failed = {}, {}
    for kind in TEXT_CHOICES["tokenizer"]:
        try:
            fitted[kind] = _tokenizer(*key, kind)
        except ValueError as err:  # e.g. a BPE vocabulary smaller than the text's alphabet
            failed[kind] = str(err)
    for kind, why in failed.items():
        st.warning(f"No {TOKENIZER_TITLES[kind]} tokeniser for this text: {why}")
    if not sentence.strip():
        st.info("Type a sentence above to see how each tokeniser cuts it: this one is empty or only whitespace.")
        return
    pieces = {kind: token_pieces(tokenizer, sentence) for kind, tokenizer in fitted.items()}
    if not any(pieces.values()):
        st.info("After standardisation (the dataset's options) this sentence has no tokens: type some words.")
        return
    if not any(p.known for cut in pieces.values() for p in cut if p.text.strip()):
        st.warning(
            "Every character of this sentence (spaces aside) is unknown: none occurs in the training text, so "
            "every tokeniser gives only [UNK]. Type text in the corpus's alphabet."
        )
        return
    for column, (kind, cut) in zip(st.columns(len(pieces)), pieces.items()):
        unknown = sum(not p.known for p in cut)
        with column:
            st.markdown(f"**{TOKENIZER_TITLES[kind]}**: {len(cut)} tokens")
            st.html(token_chips([(p.text, p.known) for p in cut]))
            st.caption(f"{fitted[kind].vocab_size:,} tokens in the vocabulary; "
                       + (f"**{unknown} unknown** (red, [UNK])" if unknown else "no unknown token"))  # fmt: skip
    st.caption("␣ is a space. Characters: short vocabulary, long sequences; words: short sequences but unknown "
               "words; BPE: frequent words whole, rare ones in pieces, hardly anything unknown.")  # fmt: skip


def sweep_section(data: SequenceData) -> None:
    """Vocabulary size against the held-out OOV rate and the mean sequence length."""
    try:
        sweep = _sweep(*_key(data))
    except ValueError as err:
        st.warning(f"Cannot sweep vocabulary sizes on this text: {err}")
        return
    left, right = st.columns(2)
    left.plotly_chart(vocabulary_sweep_chart(sweep, "oov_rate", data.options["vocab_size"]), key="data.sweep.oov")
    right.plotly_chart(vocabulary_sweep_chart(sweep, "tokens_per_line", data.options["vocab_size"]),
                       key="data.sweep.length")  # fmt: skip
    st.caption(
        "Tokenisers fitted on the training text, measured on the held-out text. A word vocabulary keeps the "
        "most frequent words, so a larger one leaves fewer words unknown; BPE (trained once, smaller sizes "
        "are its first merges) knows every character it saw, so it trades vocabulary for sequence length."
    )


def merges_section(data: SequenceData) -> None:
    """BPE's first merges in the order learned."""
    try:
        merges = _merges(*_key(data))
    except ValueError as err:
        st.warning(f"Cannot train BPE on this text: {err}")
        return
    if merges.empty:
        st.info("BPE learned no merge: no pair of characters occurs twice in the training text.")
        return
    shown = merges.assign(**{c: merges[c].map(shown_token) for c in ("left", "right", "token")})
    st.dataframe(
        shown, hide_index=True, width="stretch", height=320,
        column_config={
            "rank": st.column_config.NumberColumn("rank", help="1 = the first merge learned"),
            "count": st.column_config.NumberColumn(
                "count", format="%d", help="Times the pair stood side by side in the training text when merged"),
        },
    )  # fmt: skip
    st.caption(f"The first {len(merges)} merges of the BPE tokeniser (vocab_size {data.options['vocab_size']:,}), "
               "each the most frequent adjacent pair at its turn; ␣ is a space, \\n a line end.")  # fmt: skip

