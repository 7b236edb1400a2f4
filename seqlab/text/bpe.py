"""Byte-pair encoding (seed 003): sub-word tokens learned by merging the most frequent pair.

Training starts from the characters of the training text and repeatedly merges the
most frequent adjacent pair of symbols into a new token, until the vocabulary has
the size asked for. Encoding applies the merges in the order learned. Pairs never
cross a chunk: a word with the single space before it, a run of punctuation with
its space, or a run of other whitespace (GPT-2's idea, so " the" becomes one token
and decoding is exact).
"""

from __future__ import annotations

import collections
import functools
import heapq
import re

from seqlab.checks import check_int
from seqlab.text.standardize import PUNCTUATION, WHITESPACE, char_class
from seqlab.text.tokenizer import UNK_ID, Tokenizer

_WORD = char_class(PUNCTUATION + WHITESPACE, negate=True)
CHUNK_PATTERN = f" ?{_WORD}+| ?{char_class(PUNCTUATION)}+|{char_class(WHITESPACE)}+"
MIN_PAIR_COUNT = 2  # a pair seen once teaches nothing about unseen text
_CACHE = 1 << 16  # chunks remembered by encode (words repeat: Shakespeare has ~30k distinct)

Pair = tuple[str, str]


def split_chunks(text: str) -> list[str]:
    """The chunks of a standardised text; they join back to the text exactly."""
    return re.findall(CHUNK_PATTERN, text)


def merge_pair(symbols: list, pair: Pair) -> list:
    """``symbols`` with every occurrence of ``pair``, left to right, replaced by its concatenation."""
    first, second = pair
    merged, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == first and symbols[i + 1] == second:
            merged.append(first + second)
            i += 2
        else:
            merged.append(symbols[i])
            i += 1
    return merged


def learn_merges(chunk_counts: dict[str, int], new_tokens: int, reserved: set[str]) -> list[Pair]:
    """The merges, in the order learned, that add up to ``new_tokens`` tokens.

    Counts of pairs are kept up to date incrementally (only the chunks holding the
    merged pair are recounted) and the most frequent pair is found with a heap whose
    outdated entries are skipped, so training takes seconds on a few million
    characters. Ties go to the pair that sorts first. A pair whose concatenation is
    a reserved string (a special token) is never merged.
    """
    chunks = [list(chunk) for chunk in chunk_counts]
    weights = list(chunk_counts.values())
    pair_counts: collections.Counter[Pair] = collections.Counter()
    holders: dict[Pair, set[int]] = collections.defaultdict(set)  # pair -> chunks that (may) hold it
    for i, symbols in enumerate(chunks):
        for pair in zip(symbols, symbols[1:]):
            pair_counts[pair] += weights[i]
            holders[pair].add(i)
    heap = [(-count, pair) for pair, count in pair_counts.items()]
    heapq.heapify(heap)
    known = {symbol for symbols in chunks for symbol in symbols}
    merges: list[Pair] = []
    done: set[Pair] = set()
    while new_tokens > 0 and heap:
        negative, pair = heapq.heappop(heap)
        if -negative != pair_counts[pair] or pair in done or "".join(pair) in reserved:
            continue  # an outdated entry, or a pair not to merge
        if -negative < MIN_PAIR_COUNT:
            break
        done.add(pair)
        merges.append(pair)
        token = "".join(pair)
        if token not in known:  # two merges can make the same string ("a"+"bc", "ab"+"c")
            known.add(token)
            new_tokens -= 1
        changed = set()
        for i in holders.pop(pair):
            symbols = chunks[i]
            merged = merge_pair(symbols, pair)
            if len(merged) == len(symbols):
                continue
            for old in zip(symbols, symbols[1:]):
                pair_counts[old] -= weights[i]
                changed.add(old)
            for new in zip(merged, merged[1:]):
                pair_counts[new] += weights[i]
                holders[new].add(i)
                changed.add(new)
            chunks[i] = merged
        for p in changed:
            if pair_counts[p] > 0:
                heapq.heappush(heap, (-pair_counts[p], p))
    return merges


class BPETokenizer(Tokenizer):
    """Byte-pair encoding over characters, trained on the corpus to a chosen vocabulary size.

    Args:
        vocab_size: tokens wanted, specials included; at least the specials plus the
            training text's alphabet. When no pair is seen twice any more, training
            stops earlier and ``note`` says so.
        standardize, specials: see ``Tokenizer``.

    The vocabulary is the specials, the alphabet in code-point order, then the
    merged tokens in the order learned; ``merges`` lists the merges in that order.
    ``decode(encode(text)) == standardize(text)`` whenever every character was seen.

    Example:
        >>> tok = BPETokenizer(vocab_size=13).fit(["low lower lowest"] * 3)
        >>> tok.merges
        [('l', 'o'), ('lo', 'w'), (' ', 'low')]
    """

    kind = "bpe"
    joiner = ""

    def __init__(self, vocab_size: int = 1000, standardize=None, specials=()):
        super().__init__(standardize, specials)
        self.vocab_size_limit = check_int("vocab_size", vocab_size, minimum=len(self.specials) + 1)
        self._merges: list[Pair] = []

    def options(self) -> dict:
        return {"vocab_size": self.vocab_size_limit}

    @property
    def merges(self) -> list[Pair]:
        """The merges in the order learned (the order ``encode`` applies them)."""
        self._fitted()
        return list(self._merges)

    def _learn(self, texts: list[str]) -> list[str]:
        chunk_counts = collections.Counter(chunk for text in texts for chunk in split_chunks(text))
        alphabet = sorted(set().union(*chunk_counts))
        smallest = len(self.specials) + len(alphabet)
        if self.vocab_size_limit < smallest:
            raise ValueError(
                f"vocab_size {self.vocab_size_limit:,} is smaller than the training text's alphabet "
                f"({len(alphabet):,} characters) plus {len(self.specials)} special tokens: choose at least "
                f"{smallest:,}, or use the character tokeniser."
            )
        merges = learn_merges(chunk_counts, self.vocab_size_limit - smallest, set(self.specials))
        self._merges = merges
        learned = list(dict.fromkeys("".join(pair) for pair in merges))  # two merges can make one token
        if smallest + len(learned) < self.vocab_size_limit:
            self.note = (
                f"vocab_size {self.vocab_size_limit:,} asked, but after {len(merges):,} merges no pair of symbols "
                f"is seen {MIN_PAIR_COUNT} times in the training text: the vocabulary holds "
                f"{smallest + len(learned):,} tokens."
            )
        return alphabet + learned

    def _set_vocab(self, vocab: list[str]) -> None:
        super()._set_vocab(vocab)
        self._ranks = {pair: rank for rank, pair in enumerate(self._merges)}
        self._chunk_ids = functools.lru_cache(maxsize=_CACHE)(self._encode_chunk)

    def __getstate__(self) -> dict:
        # The per-chunk cache wraps a bound method, which pickle refuses (st.cache_data pickles a dataset).
        return {k: v for k, v in self.__dict__.items() if k != "_chunk_ids"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if "_ranks" in state:  # fitted: _set_vocab made both
            self._chunk_ids = functools.lru_cache(maxsize=_CACHE)(self._encode_chunk)

    def _learned(self) -> dict:
        return {"merges": [list(pair) for pair in self._merges]}

    def _restore(self, data: dict) -> None:
        merges = data.get("merges")
        if not isinstance(merges, list) or not all(
            isinstance(m, list) and len(m) == 2 and "".join(m) in self._index and m[0] in self._index
            and m[1] in self._index for m in merges
        ):
            raise ValueError(
                "The saved merges must be pairs of vocabulary tokens whose concatenation is a token too: "
                "the file was edited or damaged; fit the tokeniser again."
            )
        self._merges = [tuple(m) for m in merges]
        self._set_vocab(self._vocab)

    def _encode_chunk(self, chunk: str) -> tuple[int, ...]:
        # An unknown character is None, which no merge involves. Applying each merge
        # once, in the order learned, is what training did to the corpus and what the
        # SavedModel's loop does: take the earliest merge after the last one applied.
        symbols = [char if char in self._index else None for char in chunk]
        last = -1
        while True:
            ranks = [self._ranks.get(pair, -1) for pair in zip(symbols, symbols[1:])]
            later = [rank for rank in ranks if rank > last]
            if not later:
                break
            last = min(later)
            symbols = merge_pair(symbols, self._merges[last])
        return tuple(UNK_ID if s is None else self._index[s] for s in symbols)

    def _ids(self, text: str) -> list[int]:
        return [i for chunk in split_chunks(text) for i in self._chunk_ids(chunk)]
