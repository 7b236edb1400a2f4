"""Statistics of a corpus and of its tokenisers (seed 003: words, characters or sub-words?).

- ``text_statistics``: characters, words, lines and distinct ones of a text;
- ``unseen_shares``: how much of the held-out text never occurs in training;
- ``token_pieces``: one text as a tokeniser cuts it, unknown pieces marked;
- ``vocabulary_sweep``: vocabulary size against the held-out unknown-token (OOV)
  rate and the mean sequence length, for word and BPE tokenisers fitted on training;
- ``merge_counts``: BPE's first merges in the order learned, with how often each
  pair occurred when it was merged.

Pure Python like the tokenisers; the dashboard caches and draws what these return.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from seqlab.text.bpe import BPETokenizer, merge_pair, split_chunks
from seqlab.text.char import CharTokenizer
from seqlab.text.standardize import PUNCTUATION, WHITESPACE, Standardize, char_class
from seqlab.text.tokenizer import UNK_ID, Tokenizer
from seqlab.text.word import WordTokenizer, split_words

# A word of the statistics is a run of letters/digits: punctuation marks are not words here.
_WORD = re.compile(char_class(PUNCTUATION + WHITESPACE, negate=True) + "+")
# Vocabulary sizes tried by the sweep (those below a tokeniser's smallest or above its largest are skipped).
SWEEP_SIZES = (50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000)
BPE_SWEEP_MAX = 5_000  # BPE is trained once to this size; every smaller one is a prefix of its merges
# Stands for a character never seen in training, outside every tokeniser's alphabet; the first of these not seen.
_PLACEHOLDERS = "\ufffd" + "".join(chr(c) for c in range(0xE000, 0xE100))


# --- the corpus --------------------------------------------------------------


@dataclass(frozen=True)
class TextStatistics:
    """Counts of one text (words: runs without whitespace or punctuation; lines: non-empty lines)."""

    characters: int
    words: int
    lines: int
    distinct_characters: int
    distinct_words: int
    words_seen_once: int  # hapax legomena: the long tail a word vocabulary cannot cover
    word_characters: int  # characters inside words, for the mean word length

    @property
    def characters_per_word(self) -> float:
        return self.word_characters / self.words if self.words else float("nan")

    @property
    def words_per_line(self) -> float:
        return self.words / self.lines if self.lines else float("nan")


def text_statistics(text: str) -> TextStatistics:
    """Characters, words, non-empty lines and distinct ones of ``text`` (as given: standardise it first)."""
    words = _WORD.findall(text)
    counts = collections.Counter(words)
    return TextStatistics(
        characters=len(text),
        words=len(words),
        lines=sum(1 for line in text.splitlines() if line.strip()),
        distinct_characters=len(set(text)),
        distinct_words=len(counts),
        words_seen_once=sum(1 for n in counts.values() if n == 1),
        word_characters=sum(map(len, words)),
    )


def unseen_shares(train: str, held_out: str) -> tuple[float, float]:
    """Shares of the held-out characters and words (statistics' words) that never occur in ``train``."""
    seen_chars, seen_words = set(train), set(_WORD.findall(train))
    words = _WORD.findall(held_out)
    chars = sum(1 for c in held_out if c not in seen_chars) / len(held_out) if held_out else 0.0
    return chars, (sum(1 for w in words if w not in seen_words) / len(words) if words else 0.0)


def char_text(tokenizer: CharTokenizer, ids: Iterable[int]) -> str:
    """The standardised text of character ids, each ``[UNK]`` as one character outside the vocabulary.

    A character tokeniser fitted on the training text gives that text back exactly;
    for held-out text every unseen character stays a single unseen character, so
    any tokeniser fitted on the same training text counts it unknown as the real one.
    (Only an unseen punctuation mark or whitespace character, rare, changes the word
    tokeniser's cut: its stand-in reads as part of the neighbouring word.)
    """
    vocab = tokenizer.vocab
    stand_in = next(c for c in _PLACEHOLDERS if c not in vocab)
    return "".join(stand_in if i == UNK_ID else vocab[i] for i in ids)


def example_sentence(text: str, shortest: int = 40, longest: int = 100) -> str:
    """The first line of ``text`` with ``shortest`` to ``longest`` characters and at least five words."""
    for line in text.splitlines():
        line = line.strip()
        if shortest <= len(line) <= longest and len(_WORD.findall(line)) >= 5:
            return line
    return text.strip()[:longest]


# --- one text, cut ------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """One token of a text: the text it covers and its id (``UNK_ID`` when unknown)."""

    text: str
    token_id: int

    @property
    def known(self) -> bool:
        return self.token_id != UNK_ID


def token_pieces(tokenizer: Tokenizer, text: str) -> list[Piece]:
    """``text`` as ``tokenizer`` cuts it, each token with the text it covers (the unknown piece itself too).

    A word tokeniser drops whitespace, so its pieces are the words; the character and
    BPE tokenisers cover the standardised text exactly, one character per ``[UNK]``.
    """
    ids = tokenizer.encode(text)
    standardized = tokenizer.standardize(text)
    if isinstance(tokenizer, WordTokenizer):
        return [Piece(word, i) for word, i in zip(split_words(standardized), ids, strict=True)]
    vocab, pieces, at = tokenizer.vocab, [], 0
    for i in ids:
        width = 1 if i == UNK_ID else len(vocab[i])
        pieces.append(Piece(standardized[at : at + width], i))
        at += width
    return pieces


# --- vocabulary size against unknown tokens and length --------------------------


def bpe_prefix(tokenizer: BPETokenizer, vocab_size: int) -> BPETokenizer:
    """The BPE tokeniser of ``vocab_size`` tokens that training on the same text would give.

    Training merges one pair at a time and only stops on the size, so a smaller
    vocabulary is the larger one's first merges: up to the one that made its last token.
    """
    data = tokenizer.to_dict()
    smallest = len(data["vocab"]) - len(dict.fromkeys("".join(m) for m in data["merges"]))
    if vocab_size < smallest:
        raise ValueError(
            f"vocab_size {vocab_size:,} is smaller than the alphabet plus special tokens ({smallest:,}): "
            f"choose at least {smallest:,}."
        )
    made, merges = set(), []
    for pair in data["merges"]:
        if len(made) == vocab_size - smallest:
            break
        merges.append(pair)
        made.add("".join(pair))
    data.update(vocab=data["vocab"][: smallest + len(made)], merges=merges, note=None)
    data["options"] = {**data["options"], "vocab_size": vocab_size}
    return Tokenizer.from_dict(data)


def _row(kind: str, vocab_size: int, ids: np.ndarray, unknown: np.ndarray, characters: int, lines: int) -> dict:
    return {
        "tokenizer": kind,
        "vocab_size": vocab_size,
        "oov_rate": float(unknown.mean()) if len(ids) else 0.0,
        "tokens_per_line": len(ids) / lines if lines else float("nan"),
        "tokens_per_100_characters": 100 * len(ids) / characters if characters else float("nan"),
    }


def vocabulary_sweep(
    train: str,
    held_out: str,
    standardize: Standardize | None = None,
    sizes: Sequence[int] = SWEEP_SIZES,
    bpe_max: int = BPE_SWEEP_MAX,
) -> pd.DataFrame:
    """Held-out OOV rate and mean length per vocabulary size, for tokenisers fitted on ``train``.

    Args:
        train, held_out: the training and held-out texts.
        standardize: what every tokeniser applies first (the dataset's options).
        sizes: word and BPE vocabulary sizes to try; each tokeniser also gets its
            smallest (BPE: the alphabet) and its largest (every training word, or
            BPE trained to ``bpe_max``).
        bpe_max: the largest BPE vocabulary tried (training time grows with it).

    Returns:
        One row per tokeniser and size: ``tokenizer`` (char, word, bpe),
        ``vocab_size``, ``oov_rate`` (share of held-out tokens that are ``[UNK]``,
        0 to 1), ``tokens_per_line`` (per non-empty held-out line) and
        ``tokens_per_100_characters``.
    """
    standardize = Standardize() if standardize is None else standardize
    text = standardize(held_out)
    characters, lines = len(text), sum(1 for line in text.splitlines() if line.strip())
    rows = []

    char = CharTokenizer(standardize=standardize).fit(train)
    ids = np.asarray(char.encode(held_out))
    rows.append(_row("char", char.vocab_size, ids, ids == UNK_ID, characters, lines))

    # A word vocabulary of V tokens is the specials and the V - 2 most frequent words: ids below V.
    word = WordTokenizer(vocab_size=max(max(sizes), 3), standardize=standardize).fit(train)
    ids = np.asarray(word.encode(held_out))
    for v in sorted({s for s in sizes if 3 <= s < word.vocab_size} | {word.vocab_size}):
        rows.append(_row("word", v, ids, (ids == UNK_ID) | (ids >= v), characters, lines))

    smallest = char.vocab_size  # the specials and the alphabet: BPE before its first merge
    bpe = BPETokenizer(vocab_size=max(bpe_max, smallest), standardize=standardize).fit(train)
    for v in sorted({s for s in sizes if smallest < s < bpe.vocab_size} | {smallest, bpe.vocab_size}):
        ids = np.asarray(bpe_prefix(bpe, v).encode(held_out))
        rows.append(_row("bpe", v, ids, ids == UNK_ID, characters, lines))
    return pd.DataFrame(rows)


# --- BPE merges ---------------------------------------------------------------------


def merge_counts(tokenizer: BPETokenizer, train: str, first: int = 30) -> pd.DataFrame:
    """The first ``first`` merges of ``tokenizer`` in the order learned, replayed on its training text.

    Returns:
        Columns ``rank`` (1 = first merge), ``left``, ``right``, ``token`` (their
        concatenation) and ``count``: how often the pair stood side by side in the
        training text when it was merged (the count that made it the most frequent).
    """
    chunk_counts = collections.Counter(split_chunks(tokenizer.standardize(train)))
    chunks = {chunk: list(chunk) for chunk in chunk_counts}
    rows = []
    for rank, (left, right) in enumerate(tokenizer.merges[:first], start=1):
        token, count = left + right, 0
        for chunk, symbols in chunks.items():
            if token not in chunk:  # the pair is adjacent only where its concatenation occurs
                continue
            count += chunk_counts[chunk] * sum(1 for pair in zip(symbols, symbols[1:]) if pair == (left, right))
            chunks[chunk] = merge_pair(symbols, (left, right))
        rows.append({"rank": rank, "left": left, "right": right, "token": token, "count": count})
    return pd.DataFrame(rows, columns=["rank", "left", "right", "token", "count"])

