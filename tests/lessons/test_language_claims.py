"""The language lessons' claims: the GPT against the Markov baseline, the cache's speed-up, attention against a bag
of words, BERT's blanks; measured on tiny trained runs and worded by their figures both ways."""

from types import SimpleNamespace

import pytest

from seqlab.lessons import LESSONS
from seqlab.lessons.language import (
    DATE_BLANK,
    _against_bag_of_words,
    _against_markov,
    _cache_speedup,
    _filled_dates,
    _movie_guesses,
)
from seqlab.runs import RunStore
from seqlab.training import ExperimentSpec, run_experiment
from tests.cli_store import copy_run
from tests.language_run import TINY_TEXT


@pytest.fixture(scope="module")
def gpt_run(tmp_path_factory):
    spec = ExperimentSpec("pydoc", "gpt", data_options=TINY_TEXT, model_options={"layers": 1, "heads": 2},
                          epochs=1, batch_size=8, steps=4)
    return run_experiment(spec, store=RunStore(tmp_path_factory.mktemp("gpt_runs")), savedmodel=False)


def with_bits(run, root, bits: float, markov: dict[str, float]):
    metrics = {"model": {**run.metrics["model"], "bits_per_character": bits},
               "baselines": {name: {"bits_per_character": b} for name, b in markov.items()}}
    return copy_run(root, run, f"bits-{bits}", metrics=metrics)


def test_the_gpt_is_said_to_lose_to_the_markov_chain_when_its_run_does(gpt_run, tmp_path):
    claim = _against_markov()
    behind = claim.check([with_bits(gpt_run, tmp_path, 3.47, {"markov_order_2": 3.1, "markov_order_4": 2.79})])
    assert behind.figures == {"steps": 4, "bits": 3.47, "markov": 2.79, "order": 4} and not behind.holds
    assert "3.47 bits per character: it is still behind the Markov chain of order 4 (2.79 bits)" in behind.sentence
    ahead = claim.check([with_bits(gpt_run, tmp_path, 1.9, {"markov_order_4": 2.79})])
    assert ahead.holds and "below the best Markov chain's 2.79 (order 4)" in ahead.sentence
    assert "behind" not in ahead.sentence


def test_the_cache_speed_up_is_measured_on_the_run_not_typed(gpt_run):
    claim = _cache_speedup()
    figures = claim.measure([gpt_run])
    assert figures["cached"] > 0 and figures["recomputed"] > 0 and figures["context"] == TINY_TEXT["lookback"]
    faster = {"cached": 718.0, "recomputed": 344.0, "context": 64}
    assert claim.holds(faster) and "2.1 times faster at this context of 64" in claim.say(faster)
    slower = {"cached": 300.0, "recomputed": 344.0, "context": 16}
    assert not claim.holds(slower) and "no faster (0.9 times) at this context of 16" in claim.say(slower)


def classifier(model: str, accuracy: float, **model_options):
    return SimpleNamespace(meta=SimpleNamespace(model=model), metrics={"model": {"accuracy": accuracy}},
                           spec={"dataset": "movie_sentiment", "epochs": 3, "data_options": model_options})


def test_attention_is_compared_with_the_bag_of_words_trained_beside_it():
    claim = _against_bag_of_words()
    level = claim.check([classifier("mean_embedding", 0.80, tokenizer="word"), classifier("transformer", 0.79)])
    assert level.holds and "the encoder block 0.79, the mean of the word embeddings" in level.sentence
    assert "does not beat a bag of words" in level.sentence and "first lesson" not in level.sentence
    better = claim.check([classifier("mean_embedding", 0.70, tokenizer="word"), classifier("transformer", 0.79)])
    assert not better.holds and "reads more than a bag of words" in better.sentence
    with pytest.raises(ValueError, match="mean_embedding, tokenizer=word run did not finish"):
        claim.check([classifier("mean_embedding", 0.8, tokenizer="char"), classifier("transformer", 0.79)])


@pytest.fixture
def dates_run(lesson_runs):
    """The BERT lesson's tiny run on the dates (``tests.lesson_runs``)."""
    return lesson_runs("bert-masking")[0]


@pytest.fixture
def movie_run(lesson_runs):
    """The BERT lesson's tiny run on the movie reviews."""
    return lesson_runs("bert-masking")[1]


def test_the_date_blanks_are_filled_by_the_run_and_worded_by_how_many_it_got(dates_run):
    claim = _filled_dates()
    figures = claim.measure([dates_run])
    assert figures["one_word_dates"] + figures["two_words_dates"] == figures["month_dates"] == 10
    assert 0 <= figures["one_word"] <= 1 and 0 < figures["p"] <= 1
    learned = {"epochs": 20, "one_word_dates": 70, "one_word": 0.93, "two_words_dates": 30, "two_words": 0.2,
               "month_dates": 100, "month": 0.0, "guess": "twelfth", "p": 0.8}
    said = claim.say(learned)
    assert claim.holds(learned) and "the blank is decided by its context" in said
    assert "hidden day of 93% of the 70 held-out dates whose day is one word" in said
    assert f"fills “{DATE_BLANK}” with “twelfth” (p = 0.80)" in said and "second for 20% of 30" in said
    guessing = {**learned, "one_word": 0.17, "guess": "twentieth"}
    assert not claim.holds(guessing) and "the context does not decide its blank yet" in claim.say(guessing)


def test_a_date_is_blanked_at_its_days_last_word_and_at_its_month():
    from seqlab.lessons.language import blanked_dates

    assert blanked_dates("21.11.1957 : the twenty-first of november") == {
        "day": ("21.11.1957 : the twenty-[MASK] of november", "first"),
        "month": ("21.11.1957 : the twenty-first of [MASK]", "november")}
    assert blanked_dates("12.03.2024 : the twelfth of march")["day"] == ("12.03.2024 : the [MASK] of march", "twelfth")


def test_the_movie_run_is_the_contrast_its_own_scores_tell(movie_run):
    claim = _movie_guesses()
    run = movie_run
    figures = claim.measure([run])
    assert figures["mlm"] == run.metrics["model"]["mlm_accuracy"] and len(figures["guesses"]) == 2
    frequent = {**figures, "mlm": 0.095, "unigram": 0.058, "guesses": [[",", "the", "'"], [",", "the", "of"]]}
    assert claim.holds(frequent) and "“,”, “the”, “'”; “,”, “the”, “of”: frequent tokens" in claim.say(frequent)
    read = {**frequent, "mlm": 0.4}
    assert not claim.holds(read) and "reads more than word frequencies" in claim.say(read)


def test_the_bert_lesson_trains_the_dates_beside_the_movie_reviews():
    lesson = LESSONS.get("bert-masking")
    assert [spec.dataset for spec in lesson.preset.specs] == ["spelt_dates_mlm", "movie_reviews_mlm"]
    assert [claim.name for claim in lesson.claims] == [_filled_dates().name, _movie_guesses().name]
