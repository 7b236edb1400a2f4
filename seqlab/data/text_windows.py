"""A text corpus as language-model data: the fixed split, a tokeniser fitted on training, windows of ids.

``text_data`` is what every text dataset's loader returns (``pydoc`` today;
Shakespeare and the user's own text can reuse it):

1. the corpus's fixed split: first 90 % of the characters train, last 10 %
   validate (``Corpus.split``); the test split *is* that validation text, so
   test figures compare with every run and baseline on the same held-out text
   (early stopping, when on, also watches it);
2. the tokeniser (char, word or BPE, after the recorded ``Standardize``) is
   fitted on the training text only, and each split is encoded on its own;
3. windows of ``T`` ids every ``stride`` ids, each with its next ids: input
   ``x_s .. x_{s+T-1}``, targets ``x_{s+1} .. x_{s+T}`` (many-to-many aligned:
   every position is a training example, as in nanoGPT). Each split keeps
   its token stream (``seqlab.data.token_stream``) and its windows are views
   of it, so memory stays O(text): training draws its windows at random
   offsets; validation and test read the fixed windows every ``stride``.

The frame holds every id in order with its split (``split_ids``), for
baselines that count over the whole text and for previews.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from seqlab.checks import Range, check_int
from seqlab.data.corpora import Corpus
from seqlab.data.registry import DatasetInfo, register
from seqlab.data.sequence_data import SequenceData
from seqlab.data.token_stream import stream
from seqlab.limits import check_data_size, check_memory, check_work
from seqlab.text import Standardize, Tokenizer
from seqlab.text.tokenizer import TOKENIZERS

# Options every text dataset takes, with their defaults (recorded in the spec's data options).
TEXT_DEFAULTS = {
    "tokenizer": "char",
    "lookback": 64,
    "stride": 64,
    "vocab_size": 1000,  # word and bpe only: a character vocabulary is what the text holds
    "embedding_dim": 32,  # the input encoding (seed 004's C = W~A), shared by every language architecture
    "characters": 0,  # use the first N characters of the corpus; 0: all of it
    "lowercase": False,
    "strip_punctuation": False,
    "collapse_whitespace": False,
}
TEXT_CHOICES = {"tokenizer": ("char", "word", "bpe")}  # the kinds of seqlab.text, simplest first
TEXT_RANGES = {
    "vocab_size": Range(3, 100_000),
    "embedding_dim": Range(1, 1024),
    "characters": Range(0, 100_000_000),
}
# Every language run is judged against Markov chains of orders 1 to 5 counted on the whole training text
# (seqlab.tasks.language), 2 + 3 + ... + 6 = 20 gram lengths, and a markov model counts up to 6 more. Measured
# (seqlab.layers.markov.count_grams): about 0.5 us a token and gram length, and 100 bytes a token at the peak.
COUNTED_LENGTHS = 26
SECONDS_PER_COUNTED_TOKEN = 0.5e-6
BYTES_PER_COUNTED_TOKEN = 120
LESS_TEXT = "use less of the text (the characters option)"
# The same orders then score every test window: a (b, T, V) table of log-probabilities per order, one piece of
# work without progress. Measured (seqlab.tasks.language.markov_predictions): 65 to 85 ns of CPU a cell.
SCORED_ORDERS = 5
SECONDS_PER_SCORED_CELL = 100e-9


def make_tokenizer(kind: str, vocab_size: int, standardize: Standardize, specials: tuple[str, ...] = ()) -> Tokenizer:
    """An unfitted tokeniser of ``kind`` (char, word, bpe); ``vocab_size`` caps word and BPE vocabularies.

    ``specials``: special tokens after ``[PAD]`` and ``[UNK]`` (a translation's target side: ``[START]``, ``[EOS]``).
    """
    cls = TOKENIZERS.get(kind)
    sized = {} if kind == "char" else {"vocab_size": vocab_size}
    return cls(standardize=standardize, specials=specials, **sized)


def split_ids(data: SequenceData, split: str) -> np.ndarray:
    """The whole token ids of ``"train"`` or ``"val"`` (the test split's text), in order, from the data's frame."""
    return data.frame.loc[data.frame["split"] == split, "token_id"].to_numpy()


def token_counts(data: SequenceData) -> np.ndarray:
    """How often each id ``(V,)`` occurs in the training text (what the tokeniser was fitted on)."""
    return np.bincount(split_ids(data, "train"), minlength=data.tokenizer.vocab_size)


def text_data(
    name: str,
    corpus: Corpus,
    tokenizer: str,
    vocab_size: int,
    lowercase: bool,
    strip_punctuation: bool,
    collapse_whitespace: bool,
    lookback: int,
    stride: int,
    embedding_dim: int,
    characters: int,
) -> SequenceData:
    """``SequenceData`` of task ``language`` from ``corpus`` (module docstring); options as ``TEXT_DEFAULTS``."""
    check_int("lookback", lookback, 1)
    check_int("stride", stride, 1)
    if characters:
        corpus = Corpus(corpus.text[:characters], corpus.title, corpus.source, corpus.licence, corpus.parts)
    standardize = Standardize(lowercase, strip_punctuation, collapse_whitespace)
    train_text, val_text = corpus.split()
    fitted = make_tokenizer(tokenizer, vocab_size, standardize).fit(train_text)
    ids = {split: np.asarray(fitted.encode(text), dtype="int64") for split, text in
           (("train", train_text), ("val", val_text))}  # fmt: skip
    for split, what in (("train", "training text (first 90 %)"), ("val", "validation text (last 10 %)")):
        if len(ids[split]) <= lookback:
            raise ValueError(
                f"The {what} of {corpus.title!r} is {len(ids[split]):,} {tokenizer} tokens long, too short for a "
                f"context of {lookback:,}: it needs at least {lookback + 1:,}. Choose a shorter lookback or use "
                "more of the text (characters = 0 takes all of it)."
            )
    check_data_size(1, lookback, 1, outputs=lookback, what="a window")  # the context: max_sequence_length at most
    check_memory(4 * sum(map(len, ids.values())), "the token streams (int32; the windows are views of them)",
                 LESS_TEXT)
    check_language_evaluation(len(ids["train"]), (len(ids["val"]) - lookback - 1) // stride + 1, lookback,
                              fitted.vocab_size)
    train, val = (stream(ids[split], lookback, stride) for split in ("train", "val"))
    frame = pd.DataFrame({
        "token_id": np.concatenate([ids["train"], ids["val"]]),
        "split": ["train"] * len(ids["train"]) + ["val"] * len(ids["val"]),
    })  # fmt: skip
    return SequenceData(
        name=name,
        task="language",
        frame=frame,
        features=("token",),
        target="next token",
        units={},
        lookback=lookback,
        horizon=lookback,
        splits={"train": train, "val": val, "test": val},
        options={
            "tokenizer": tokenizer, "vocab_size": vocab_size, "lowercase": lowercase,
            "strip_punctuation": strip_punctuation, "collapse_whitespace": collapse_whitespace,
            "lookback": lookback, "stride": stride, "embedding_dim": embedding_dim, "characters": characters,
        },  # fmt: skip
        tokenizer=fitted,
    )


def check_language_evaluation(train_tokens: int, test_windows: int, lookback: int, vocab_size: int) -> None:
    """Refuse a text whose language runs could not be judged within the limits (before any window is cut).

    A run predicts ``(N, T, V)`` probabilities of the test windows, counts
    the Markov baselines over the training tokens (``COUNTED_LENGTHS``) and
    scores each of their orders on the same ``(N, T, V)`` cells.
    """
    cells = test_windows * lookback * vocab_size
    windows = f"{test_windows:,} test windows of {lookback:,} tokens over a vocabulary of {vocab_size:,}"
    smaller = "use a smaller vocabulary (vocab_size), a shorter lookback or a larger stride"
    check_memory(cells * 4, f"the predicted probabilities of {windows}", smaller)  # float32
    check_work(cells * SCORED_ORDERS * SECONDS_PER_SCORED_CELL,
               f"scoring the Markov chains of orders 1 to 5 on {windows}", smaller)
    counting = f"counting the Markov chains of orders 1 to 5 over {train_tokens:,} training tokens"
    check_memory(train_tokens * BYTES_PER_COUNTED_TOKEN, counting, LESS_TEXT)
    check_work(train_tokens * COUNTED_LENGTHS * SECONDS_PER_COUNTED_TOKEN, counting, LESS_TEXT)


def register_corpus(
    name: str, title: str, description: str, source: str, licence: str,
    frame: Callable[[], pd.DataFrame], corpus: Callable[[], Corpus],
) -> DatasetInfo:
    """Register a built-in text ``corpus`` as a ``language`` dataset with the text options (``TEXT_DEFAULTS``)."""
    return register(
        DatasetInfo(
            name=name, title=title, task="language", description=description, source=source, licence=licence,
            frame=frame, load=lambda **options: text_data(name, corpus(), **options),
            defaults=dict(TEXT_DEFAULTS), ranges=TEXT_RANGES, choices=TEXT_CHOICES,
        )
    )
