"""The ``movie_sentiment`` dataset: rated movie-review sentences as positive or negative (many-to-one).

The 10,605 sentences of ``seqlab.data.corpora.movie_reviews`` (fetched once into
the user's cache): a sentence is ``positive`` when its mean rating is above 0,
``negative`` below; the 37 rated exactly 0 are dropped (said in ``load_notes``).
"""

from __future__ import annotations

import pandas as pd

from seqlab.data.corpora.movie_reviews import LICENCE, PACKAGE, VERSION, load_movie_reviews
from seqlab.data.registry import DatasetInfo, register
from seqlab.data.sequence_data import SequenceData
from seqlab.data.text_classes import CLASS_TEXT_CHOICES, CLASS_TEXT_DEFAULTS, CLASS_TEXT_RANGES, text_class_data

CLASSES = ("negative", "positive")


def rated_sentences(ratings: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Columns ``text`` and ``label`` (positive above 0, negative below), zeros dropped; and the note saying so."""
    neutral = ratings["rating"] == 0
    frame = pd.DataFrame({
        "text": ratings["text"][~neutral],
        "label": [CLASSES[r > 0] for r in ratings["rating"][~neutral]],
    }).reset_index(drop=True)  # fmt: skip
    notes = [f"Dropped the {int(neutral.sum()):,} sentences rated exactly 0 (neither positive nor negative)."]
    return frame, notes if neutral.any() else []


def movie_sentiment_frame() -> pd.DataFrame:
    """One row per sentence: its text and class, for the Data page."""
    return rated_sentences(load_movie_reviews())[0]


def load_movie_sentiment(**options) -> SequenceData:
    frame, notes = rated_sentences(load_movie_reviews())
    return text_class_data("movie_sentiment", frame["text"], frame["label"], CLASSES, notes=notes, **options)


register(
    DatasetInfo(
        name="movie_sentiment",
        title="Movie-review sentences (sentiment)",
        task="classify",
        description=(
            "10,568 sentences from Rotten Tomatoes movie reviews, each positive or negative by the mean "
            "rating of 20 people (-4 .. +4; the 37 rated exactly 0 are left out): read a sentence, "
            "predict its sentiment. About half are positive. A stratified split fixed by seed "
            "(80 / 10 / 10 %); the tokeniser is fitted on the training sentences only. Fetched once "
            "with `pip download` into your cache folder ($SEQLAB_CACHE or ~/.cache/seqlab)."
        ),
        source=(
            f"PyPI source distribution {PACKAGE}=={VERSION}, additional_resources/hutto_ICWSM_2014.tar.gz, "
            "movieReviewSnippets_GroundTruth.txt: Hutto & Gilbert, VADER (ICWSM 2014), sentences of Pang & "
            "Lee's (2004) 2,000 Rotten Tomatoes reviews"
        ),
        licence=LICENCE,
        frame=movie_sentiment_frame,
        load=load_movie_sentiment,
        defaults=dict(CLASS_TEXT_DEFAULTS),
        ranges=CLASS_TEXT_RANGES,
        choices=CLASS_TEXT_CHOICES,
    )
)
