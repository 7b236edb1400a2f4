"""Fill in the blank: a BERT pre-training run guesses every [MASK] of a sentence (seed 002's masked LM).

``fill_in(run, text, top_k=5)`` reads ``text`` as ``[CLS] text [SEP]`` (one
segment), each ``[MASK]`` (any case) standing for one token, and returns the
``top_k`` most probable tokens at every blank with their probabilities.
Nothing is lost quietly: a text without ``[MASK]`` or without words is
refused with the reason; a text longer than the model's context keeps the
tokens around its blanks and says which it left out; words the model never
saw read as ``[UNK]`` and are named in the notes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from seqlab.data.bert_pretraining import CLS_ID, FIRST_WORD_ID, MASK_ID, SEP_ID
from seqlab.tasks.task import task_for
from seqlab.text import MASK, PAD_ID, UNK_ID

if TYPE_CHECKING:
    import keras

    from seqlab.runs import Run
    from seqlab.text import Tokenizer

BLANK = re.compile(re.escape(MASK), re.IGNORECASE)
MAX_TOP_K = 50


@dataclass(frozen=True)
class Blank:
    """One [MASK]: its place among the tokens read, and the guesses, most probable first."""

    position: int
    tokens: tuple[str, ...]
    probabilities: tuple[float, ...]


@dataclass(frozen=True)
class Filled:
    """What the model read (``tokens``, [CLS] and [SEP] included), its guesses per blank, and notes for the user."""

    tokens: tuple[str, ...]
    blanks: tuple[Blank, ...]
    notes: tuple[str, ...]

    def text(self) -> str:
        """The text read with every blank filled by its best guess (specials left out)."""
        best = {b.position: b.tokens[0] for b in self.blanks}
        return " ".join(best.get(i, t) for i, t in enumerate(self.tokens) if i not in (0, len(self.tokens) - 1))

    def as_dict(self) -> dict:
        blanks = [{"position": b.position,
                   "predictions": [{"token": t, "probability": p} for t, p in zip(b.tokens, b.probabilities)]}
                  for b in self.blanks]
        return {"tokens": list(self.tokens), "blanks": blanks, "filled": self.text(), "notes": list(self.notes)}


def encode_with_blanks(tokenizer: Tokenizer, text: str) -> tuple[list[int], list[str]]:
    """``text``'s ids with ``MASK_ID`` for every ``[MASK]``, and the words that read as ``[UNK]``."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"The text is empty: type a sentence with {MASK} where a word is missing, e.g. "
                         f"'the film is {MASK} .'")
    pieces = BLANK.split(text)
    if len(pieces) == 1:
        raise ValueError(f"The text has no {MASK}: put {MASK} where the model should guess a word, e.g. "
                         f"'the film is {MASK} .'")
    ids, unknown = [], []
    for i, piece in enumerate(pieces):
        if i:
            ids.append(MASK_ID)
        piece_ids = tokenizer.encode(piece)
        ids.extend(piece_ids)
        if UNK_ID in piece_ids:
            unknown.extend(unknown_words(tokenizer, piece, piece_ids))
    if all(i == MASK_ID for i in ids):
        raise ValueError(f"The text is only {MASK}: give the words around the blank, the model guesses from them.")
    return ids, unknown


def unknown_words(tokenizer: Tokenizer, piece: str, ids: list[int]) -> list[str]:
    """The words of ``piece`` that became ``[UNK]`` (word tokens: by name; other tokenisers: a count)."""
    if tokenizer.kind == "word":
        from seqlab.text.word import split_words

        words = split_words(tokenizer.standardize(piece))
        if len(words) == len(ids):
            return [w for w, i in zip(words, ids) if i == UNK_ID]
    return ["[UNK]"] * ids.count(UNK_ID)


def fit_context(ids: list[int], length: int) -> tuple[list[int], str | None]:
    """``ids`` cut to ``length - 2`` tokens (room for [CLS] and [SEP]) keeping every blank, and a notice."""
    room = length - 2
    if len(ids) <= room:
        return ids, None
    blanks = [i for i, t in enumerate(ids) if t == MASK_ID]
    if blanks[-1] - blanks[0] >= room:
        raise ValueError(f"The blanks are {blanks[-1] - blanks[0] + 1} tokens apart, but the model reads at most "
                         f"{room} tokens at once: put them closer together or fill them one at a time.")
    start = max(0, min(blanks[0], blanks[-1] - room + 1))
    start = min(start, len(ids) - room)
    kept = ids[start : start + room]
    return kept, (f"The text has {len(ids)} tokens, more than the {room} the model reads: kept tokens "
                  f"{start + 1} to {start + room} (every {MASK} among them), left out {len(ids) - room}.")


def fill_in_model(model: keras.Model, tokenizer: Tokenizer, text: str, top_k: int = 5) -> Filled:
    """``fill_in`` on a loaded pre-training model and its tokeniser."""
    if isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or not 1 <= top_k <= MAX_TOP_K:
        raise ValueError(f"top_k must be a whole number from 1 to {MAX_TOP_K}, got {top_k!r}.")
    length = int(model.inputs[0].shape[1])
    ids, unknown = encode_with_blanks(tokenizer, text)
    ids, trimmed = fit_context(ids, length)
    row = [CLS_ID, *ids, SEP_ID]
    x = np.full((1, length), PAD_ID, dtype="int32")
    x[0, : len(row)] = row
    probabilities = np.asarray(model(x, training=False))[0]  # (T, V); row 0 is the next-sentence head
    vocab = tokenizer.vocab
    blanks = []
    for position in (i for i, t in enumerate(row) if t == MASK_ID):
        p = probabilities[position].astype("float64")
        p[:FIRST_WORD_ID] = 0.0  # a blank stands for a word, never [PAD], [UNK] or a special token
        p /= p.sum()
        best = np.argsort(-p)[:top_k]
        blanks.append(Blank(position, tuple(vocab[i] for i in best), tuple(float(p[i]) for i in best)))
    notes = [trimmed] if trimmed else []
    if unknown:
        notes.append(f"{len(unknown)} word(s) are unknown to the model and read as [UNK]: "
                     f"{', '.join(repr(w) for w in unknown[:10])}{', ...' if len(unknown) > 10 else ''}.")
    return Filled(tuple(vocab[i] for i in row), tuple(blanks), tuple(notes))


def fill_in(run: Run, text: str, top_k: int = 5) -> Filled:
    """The ``top_k`` guesses, with their probabilities, for every ``[MASK]`` of ``text`` (module docstring).

    Raises:
        ValueError: a run that is not ``masked_lm``; a text that is empty, has no ``[MASK]``, is only blanks,
            or whose blanks lie further apart than the model's context; ``top_k`` outside 1..50.
    """
    task_for("fill_in", run.meta.task, run.run_id)
    return fill_in_model(run.load_model(), run.load_tokenizer(), text, top_k)
