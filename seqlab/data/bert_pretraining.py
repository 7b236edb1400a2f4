r"""BERT pre-training data: sentence pairs ``[CLS] A [SEP] B [SEP]`` with a next-sentence label, masked held-out splits.

``bert_pair_data`` turns texts into ``SequenceData`` of task ``masked_lm``
(seed 002's BERT: masked language model and next-sentence prediction):

1. a random split of the texts by ``seed`` (``val_fraction``, ``test_fraction``);
2. a tokeniser fitted on the training texts only, with ``[CLS]``, ``[SEP]``
   and ``[MASK]`` as ids 2, 3, 4 (``BERT_SPECIALS``);
3. every text of at least two tokens is cut at a random token into A and its
   continuation B; BERT's "sentences" are spans of contiguous text, not
   linguistic sentences. A keeps its last, B its first ``(T - 3) // 2``
   tokens, so that any A fits with any B in ``[CLS] A [SEP] B [SEP]`` (T =
   ``max_tokens``);
4. ``x`` ``(N, T)``: the pair's ids, padded with 0. ``y`` ``(N, T)`` is
   aligned with it: ``y[:, 0]``, the [CLS] position's target, is the
   next-sentence label; ``y[:, t]`` for t >= 1 the masked-LM target, 0
   (``[PAD]``, no loss) where there is none. The training split holds the
   true continuations, every word of A and B a candidate (not ``[UNK]``:
   an unknown word stays in the text but is no word to guess): the
   model's training step gives half the rows another row's B
   (``seqlab.data.bert_next_sentence``) and chooses 15 % of the tokens
   (``seqlab.data.bert_masking``), anew at every batch. The validation and
   test splits are paired and masked once by their seed, and only their
   chosen positions keep a target.

Segment ids are not stored: the model reads them from the ids (0 up to
the first ``[SEP]``, 1 after), so one input serves training and serving.

The ``movie_reviews_mlm`` dataset gives it the movie-review sentences
(``seqlab.data.corpora.movie_reviews``) without the test sentences of
``movie_sentiment`` (its default split), so that a classifier fine-tuned on
``movie_sentiment`` is tested on sentences the encoder never read. The
snippets are one or two sentences of different reviews, so A and B come
from one snippet, cut in two.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from seqlab.checks import Range
from seqlab.data.bert_masking import mask_tokens
from seqlab.data.bert_next_sentence import draw_pairs
from seqlab.data.registry import DatasetInfo, register
from seqlab.data.sequence_data import SequenceData, Split
from seqlab.data.text_classes import CLASS_TEXT_DEFAULTS, SPLITS, stratified_split
from seqlab.data.text_pairs import random_split
from seqlab.data.text_windows import TEXT_CHOICES, TEXT_RANGES, make_tokenizer
from seqlab.limits import check_data_size
from seqlab.text import CLS, MASK, PAD_ID, SEP, UNK_ID, Standardize

BERT_SPECIALS = (CLS, SEP, MASK)  # ids 2, 3, 4 after [PAD] and [UNK]
CLS_ID, SEP_ID, MASK_ID = 2, 3, 4
FIRST_WORD_ID = 5  # the first id that is not a special token: random replacements come from here on
PAIR_SPECIALS = 3  # [CLS], [SEP], [SEP]
# The text options of movie_sentiment's (lower case, word tokens, 10,000 words), so that a fine-tuned classifier
# reads its sentences the way the encoder was pre-trained and finds its words there (with 5,000, the classifier's
# words missing from the encoder's vocabulary, read as [UNK], cost it 2 points of test accuracy).
BERT_TEXT_DEFAULTS = {
    **{k: CLASS_TEXT_DEFAULTS[k] for k in ("tokenizer", "lowercase", "strip_punctuation", "collapse_whitespace",
                                           "vocab_size")},
    "max_tokens": 66,  # T: movie_sentiment's 64 tokens, [CLS] and [SEP] fit a fine-tuned classifier
    "val_fraction": 0.05,
    "test_fraction": 0.05,
    "seed": 0,
}
BERT_TEXT_RANGES = {
    "vocab_size": TEXT_RANGES["vocab_size"],
    "max_tokens": Range(5, 100_000, limit="max_sequence_length"),
}


def cut_texts(ids: Sequence[list[int]], rng: np.random.Generator, half: int) -> tuple[list, list]:
    """A and its continuation B (module docstring, step 3) for every text of ``ids`` with at least two tokens.

    Returns ``(firsts, seconds)``: two lists of id lists, one pair per usable text (a text of one token is
    skipped); A keeps its last ``half`` tokens, B its first ``half``.
    """
    usable = [list(seq) for seq in ids if len(seq) >= 2]
    cuts = [int(rng.integers(1, len(seq))) for seq in usable]
    return [seq[:cut][-half:] for seq, cut in zip(usable, cuts)], [seq[cut:][:half] for seq, cut in zip(usable, cuts)]


def pair_rows(firsts, seconds, length: int) -> tuple[np.ndarray, np.ndarray]:
    """``x`` and ``y`` ``(N, length)`` (module docstring, step 4): true continuations, every word of A and B a
    candidate, ``[UNK]`` not."""
    x = np.full((len(firsts), length), PAD_ID, dtype="int32")
    y = np.full((len(firsts), length), PAD_ID, dtype="int32")
    for row, (a, b) in enumerate(zip(firsts, seconds)):
        ids = [CLS_ID, *a, SEP_ID, *b, SEP_ID]
        x[row, : len(ids)] = ids
        y[row, 1 : 1 + len(a)] = a
        y[row, 2 + len(a) : 2 + len(a) + len(b)] = b
    y[y == UNK_ID] = PAD_ID  # else the commonest "word" to guess, and the model's first guess for many blanks
    y[:, 0] = 1  # is_next
    return x, y


def held_out_pairs(x: np.ndarray, y: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A held-out split's next-sentence pairs, drawn once by ``seed``."""
    from keras import ops

    x, y = draw_pairs(x, y, seed, sep_id=SEP_ID)
    return ops.convert_to_numpy(x).astype("int32"), ops.convert_to_numpy(y).astype("int32")


def sides(row: np.ndarray) -> tuple[list[int], list[int]]:
    """A and B of a row ``[CLS] A [SEP] B [SEP]``."""
    first, second = np.flatnonzero(row == SEP_ID)[:2]
    return row[1:first].tolist(), row[first + 1 : second].tolist()


def mask_held_out(x: np.ndarray, y: np.ndarray, vocab_size: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A held-out split masked once by ``seed``: the masked ids, and targets kept at the chosen positions only."""
    from keras import ops

    candidates = y != PAD_ID
    candidates[:, 0] = False  # the [CLS] position's target is the next-sentence label
    masked, chosen = mask_tokens(x, candidates, seed, vocab_size=vocab_size, mask_id=MASK_ID,
                                 first_word_id=FIRST_WORD_ID)
    masked, chosen = ops.convert_to_numpy(masked).astype("int32"), ops.convert_to_numpy(chosen)
    targets = np.where(chosen, y, PAD_ID).astype("int32")
    targets[:, 0] = y[:, 0]
    return masked, targets


def bert_pair_data(name: str, texts: Sequence[str], options: dict, notes: Sequence[str] = ()) -> SequenceData:
    """``SequenceData`` of task ``masked_lm`` from ``texts`` (module docstring); options as ``BERT_TEXT_DEFAULTS``."""
    notes = list(notes)
    texts = [str(t) for t in texts]
    length = int(options["max_tokens"])
    check_data_size(len(texts), length, 1, outputs=length, what="the sentence pairs")
    split = random_split(len(texts), options["val_fraction"], options["test_fraction"], options["seed"])
    standardize = Standardize(options["lowercase"], options["strip_punctuation"], options["collapse_whitespace"])
    tokenizer = make_tokenizer(options["tokenizer"], options["vocab_size"], standardize, BERT_SPECIALS)
    tokenizer.fit([t for t, s in zip(texts, split) if s == "train"])
    ids = [tokenizer.encode(t) for t in texts]
    rng = np.random.default_rng(options["seed"])
    splits, frames = {}, []
    for k, part in enumerate(SPLITS):
        rows = [i for i in np.flatnonzero(split == part) if len(ids[i]) >= 2]
        if len(rows) < 2:
            raise ValueError(
                f"The {part} split holds {len(rows)} text(s) of two tokens or more: give more texts or raise "
                f"val_fraction and test_fraction (now {options['val_fraction']:g} and {options['test_fraction']:g})."
            )
        x, y = pair_rows(*cut_texts([ids[i] for i in rows], rng, (length - PAIR_SPECIALS) // 2), length)
        held_out = part != "train"  # paired and masked here once; the training split by the model's step
        if held_out:
            x, y = held_out_pairs(x, y, seed=options["seed"] + k)
        pairs = [sides(row) for row in x]  # read before masking hides words
        if held_out:
            x, y = mask_held_out(x, y, tokenizer.vocab_size, seed=options["seed"] + k)
        start = sum(len(f) for f in frames)
        origin = np.arange(start, start + len(rows))
        frames.append(pd.DataFrame({
            "text": [texts[i] for i in rows],
            "first": [tokenizer.decode(a) for a, _ in pairs],
            "second": [tokenizer.decode(b) for _, b in pairs],
            "is_next": y[:, 0],  # training: the true continuation, before the step's draw
            "split": part,
        }))  # fmt: skip
        splits[part] = Split(x=x, y=y, origin=origin, mask=x != PAD_ID)
    short = sum(len(seq) < 2 for seq in ids)
    if short:
        notes.append(f"Left out {short:,} of {len(texts):,} texts of fewer than two tokens (no pair to cut).")
    return SequenceData(
        name=name,
        task="masked_lm",
        frame=pd.concat(frames, ignore_index=True),
        features=("text",),
        target="is_next",
        units={},
        lookback=length,
        horizon=length,
        splits=splits,
        options=dict(options),
        tokenizer=tokenizer,
        load_notes=tuple(notes),
    )


def pretraining_sentences() -> tuple[list[str], list[str]]:
    """The movie-review sentences minus ``movie_sentiment``'s test sentences (default split), and a note."""
    from seqlab.data.corpora.movie_reviews import load_movie_reviews
    from seqlab.data.movie_sentiment import CLASSES, rated_sentences

    ratings = load_movie_reviews()
    rated, _ = rated_sentences(ratings)
    y = np.array([CLASSES.index(c) for c in rated["label"]])
    defaults = CLASS_TEXT_DEFAULTS
    test_rows = stratified_split(y, defaults["val_fraction"], defaults["test_fraction"], defaults["seed"])["test"]
    held_out = set(rated["text"].iloc[test_rows])
    kept = [t for t in ratings["text"] if t not in held_out]
    note = (f"Left out the {len(ratings) - len(kept):,} sentences of movie_sentiment's test split (seed "
            f"{defaults['seed']}): a classifier fine-tuned on movie_sentiment is tested on sentences never read here.")
    return kept, [note]


def movie_reviews_mlm_frame() -> pd.DataFrame:
    """One row per sentence used for pre-training, for the Data page."""
    return pd.DataFrame({"text": pretraining_sentences()[0]})


def load_movie_reviews_mlm(**options) -> SequenceData:
    texts, notes = pretraining_sentences()
    return bert_pair_data("movie_reviews_mlm", texts, options, notes)


register(
    DatasetInfo(
        name="movie_reviews_mlm",
        title="Movie-review sentences (BERT pre-training)",
        task="masked_lm",
        description=(
            "The movie-review sentences of movie_sentiment, without its test sentences, as BERT pre-training "
            "data: each sentence is cut in two at a random word into [CLS] A [SEP] B [SEP]; half the time B is "
            "another sentence's tail (next-sentence prediction), and 15 % of the words are to be guessed "
            "(masked language model); both drawn anew at every batch. Fine-tune the encoder on movie_sentiment "
            "with the bert model's option pretrained."
        ),
        source="As movie_sentiment: Pang & Lee's Rotten Tomatoes sentences from the vaderSentiment 3.3.2 sdist",
        licence="As movie_sentiment (MIT for the package; cite Pang & Lee and Hutto & Gilbert)",
        frame=movie_reviews_mlm_frame,
        load=load_movie_reviews_mlm,
        defaults=dict(BERT_TEXT_DEFAULTS),
        ranges=BERT_TEXT_RANGES,
        choices=TEXT_CHOICES,
    )
)
