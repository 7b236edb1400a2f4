"""What every tokeniser shares: special tokens, the vocabulary, padding and its JSON form.

A tokeniser turns standardised text into token ids (seed 003: "transforming each
(string) example into a (pad-to-max-tokens, trim) vector of token indices"). It is
fitted on the training split only, then saved with a run as plain JSON
(``to_dict``) and restored from it (``Tokenizer.from_dict``). The id of a token is
its index in ``vocab``; the first entries are the special tokens.
"""

from __future__ import annotations

from typing import ClassVar, Iterable

import numpy as np

from seqlab.checks import check_int, shown
from seqlab.registry import Registry
from seqlab.text.standardize import Standardize

PAD, UNK = "[PAD]", "[UNK]"
PAD_ID, UNK_ID = 0, 1
# Reserved names for the special tokens of later tasks (seq2seq, BERT, GPT).
START, EOS, MASK, CLS, SEP = "[START]", "[EOS]", "[MASK]", "[CLS]", "[SEP]"
FORMAT = 1  # version of the to_dict layout
KEEP = ("first", "last")

TOKENIZERS: Registry[type["Tokenizer"]] = Registry("tokeniser")  # kind -> class, filled by subclassing


class Tokenizer:
    """Base of the character, word and BPE tokenisers (one interface, one JSON form).

    Args:
        standardize: the standardisation applied to every text before tokenising.
        specials: special tokens after ``[PAD]`` (id 0) and ``[UNK]`` (id 1), e.g.
            ``(EOS,)``; they get ids 2, 3, ... and are never produced by ``encode``.

    Subclasses set ``kind`` (the name in JSON) and ``joiner`` (what ``decode`` puts
    between tokens) and implement ``_learn`` and ``_ids``.
    """

    kind: ClassVar[str]
    joiner: ClassVar[str]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        TOKENIZERS.register(cls.kind, cls)

    def __init__(self, standardize: Standardize | None = None, specials: Iterable[str] = ()):
        self.standardize = Standardize() if standardize is None else standardize
        if not isinstance(self.standardize, Standardize):
            raise TypeError(f"standardize must be a Standardize, got {type(self.standardize).__name__}.")
        extra = tuple(specials)
        if not all(isinstance(s, str) and s for s in extra) or len(set(extra)) != len(extra):
            raise ValueError(f"specials must be distinct non-empty strings, got {shown(extra)}.")
        if PAD in extra or UNK in extra:
            raise ValueError(f"specials lists {PAD} or {UNK}, which every tokeniser has already: leave them out.")
        self.specials = (PAD, UNK, *extra)
        self.note: str | None = None  # what fit had to adapt (a capped vocabulary), for the user
        self._vocab: list[str] | None = None
        self._index: dict[str, int] = {}

    # --- fitting -------------------------------------------------------------

    def fit(self, texts: str | Iterable[str]) -> "Tokenizer":
        """Learn the vocabulary from the training split only; returns ``self``."""
        texts = [texts] if isinstance(texts, str) else list(texts)
        standardized = [self.standardize(text) for text in texts]
        if not any(text.strip() for text in standardized):
            raise ValueError(
                "The training text is empty (or only whitespace after standardisation): give text with content."
            )
        self.note = None
        self._set_vocab([*self.specials, *self._learn(standardized)])
        return self

    def _learn(self, texts: list[str]) -> list[str]:
        """The tokens after the specials, in id order, from standardised training texts."""
        raise NotImplementedError

    def _set_vocab(self, vocab: list[str]) -> None:
        self._vocab = vocab
        self._index = {token: i for i, token in enumerate(vocab)}

    # --- using it ------------------------------------------------------------

    @property
    def vocab(self) -> list[str]:
        """The tokens; a token's id is its index."""
        return list(self._fitted())

    def _fitted(self) -> list[str]:
        if self._vocab is None:
            raise ValueError(f"This {self.kind} tokeniser is not fitted: call fit(training_texts) first.")
        return self._vocab

    @property
    def vocab_size(self) -> int:
        return len(self._fitted())

    def special_id(self, token: str) -> int:
        """The id of a special token (``[EOS]``, ...): its place among ``specials``."""
        if token not in self.specials:
            raise ValueError(f"This tokeniser has no {token} token (its specials: {', '.join(self.specials)}).")
        return self.specials.index(token)

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` after standardisation; unknown pieces become ``UNK_ID``."""
        self._fitted()
        return self._ids(self.standardize(text))

    def _ids(self, text: str) -> list[int]:
        """Token ids of a standardised text."""
        raise NotImplementedError

    def tokens(self, text: str) -> list[str]:
        """The tokens of ``text`` as strings, for showing how it was cut."""
        return [self._vocab[i] for i in self.encode(text)]

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids``: tokens joined by ``joiner``, padding dropped, other specials as their names."""
        vocab = self._fitted()
        ids = [int(i) for i in ids]
        bad = [i for i in ids if not 0 <= i < len(vocab)]
        if bad:
            raise ValueError(f"Token id(s) {shown(bad)} are outside the vocabulary of {len(vocab):,} tokens.")
        return self.joiner.join(vocab[i] for i in ids if i != PAD_ID)

    def unknown_fraction(self, text: str) -> float:
        """Share of ``text``'s tokens that are ``[UNK]`` (0 for a text with no tokens): 1 means nothing is known."""
        ids = self.encode(text)
        return ids.count(UNK_ID) / len(ids) if ids else 0.0

    def pad_and_mask(
        self, sequences: Iterable[Iterable[int]], length: int, keep: str = "first"
    ) -> tuple[np.ndarray, np.ndarray]:
        """Pad with ``PAD_ID`` (at the end) or trim every id sequence to ``length``.

        Args:
            sequences: id lists, e.g. ``[tok.encode(t) for t in texts]``.
            length: the fixed length.
            keep: which tokens a longer sequence keeps: ``"first"`` (a classifier's
                input) or ``"last"`` (a language model's context before the next token).

        Returns:
            ``(ids, mask)``: int32 and bool arrays of shape ``(len(sequences), length)``;
            ``mask`` is True at real tokens.
        """
        check_int("length", length, minimum=1)
        if keep not in KEEP:
            raise ValueError(f"keep must be one of {KEEP}, got {shown(keep)}.")
        rows = [list(s) for s in sequences]
        ids = np.full((len(rows), length), PAD_ID, dtype="int32")
        mask = np.zeros((len(rows), length), dtype=bool)
        for row, seq in enumerate(rows):
            kept = seq[:length] if keep == "first" else seq[-length:]
            ids[row, : len(kept)] = kept
            mask[row, : len(kept)] = True
        return ids, mask

    # --- JSON ----------------------------------------------------------------

    def options(self) -> dict:
        """The constructor's own options (beyond ``standardize`` and ``specials``)."""
        return {}

    def to_dict(self) -> dict:
        """Plain, human-readable JSON content: options, the vocabulary, and what fit learned."""
        return {
            "format": FORMAT,
            "kind": self.kind,
            "standardize": self.standardize.to_dict(),
            "specials": list(self.specials[2:]),
            "options": self.options(),
            "vocab": self.vocab,
            "note": self.note,
            **self._learned(),
        }

    def _learned(self) -> dict:
        """What fit learned beyond the vocabulary (BPE's merges)."""
        return {}

    def _restore(self, data: dict) -> None:
        """Set what ``_learned`` saved, after the vocabulary."""

    @staticmethod
    def from_dict(data: dict) -> "Tokenizer":
        """The tokeniser that ``to_dict`` described, of the kind it names."""
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("kind") not in TOKENIZERS:
            raise ValueError(
                f"Not a saved seqlab tokeniser (format {FORMAT}, kind one of {TOKENIZERS.names_text()}): "
                "save it again with to_dict()."
            )
        cls = TOKENIZERS.get(data["kind"])
        try:
            tokenizer = cls(
                standardize=Standardize.from_dict(data["standardize"]), specials=data["specials"], **data["options"]
            )
            vocab = data["vocab"]
        except (KeyError, TypeError) as err:
            raise ValueError(
                f"The saved {data['kind']} tokeniser lacks or mistypes {err}: the file was edited or damaged; "
                "fit the tokeniser again."
            ) from None
        if (
            not isinstance(vocab, list)
            or vocab[: len(tokenizer.specials)] != list(tokenizer.specials)
            or len(set(vocab)) != len(vocab)
            or not all(isinstance(t, str) and t for t in vocab)
        ):
            raise ValueError(
                "The saved vocabulary must be distinct non-empty strings starting with the special tokens "
                f"{list(tokenizer.specials)}: the file was edited or damaged; fit the tokeniser again."
            )
        tokenizer._set_vocab(vocab)
        tokenizer.note = data.get("note")
        tokenizer._restore(data)
        return tokenizer

    def __repr__(self) -> str:
        size = "not fitted" if self._vocab is None else f"{len(self._vocab):,} tokens"
        return f"{type(self).__name__}({size}, {self.standardize})"
