"""The lessons' registry: every lesson shows equations, has a registered view, a preset that resolves and fits a
minute, and is runnable from the CLI by its name."""

import pytest

from seqlab.app.lessons.lesson import layer_class
from seqlab.app.lessons.lesson_views import LESSON_VIEWS
from seqlab.data import load_dataset
from seqlab.layers.docs import equations
from seqlab.lessons import LESSONS, Lesson, get_preset, register_lesson
from seqlab.models import build_model
from seqlab.training.presets import PRESETS, Preset
from seqlab.training.spec import ExperimentSpec

RECURRENT = ["markov-hmm", "narx-energy", "elman-vanishing", "lstm-gates", "gru-gates", "esn-reservoir",
             "bidirectional-dates"]


def test_the_recurrent_lessons_open_the_lecture_in_its_order():
    assert LESSONS.names()[: len(RECURRENT)] == RECURRENT
    assert [LESSONS.get(n).topic for n in RECURRENT][:3] == [
        "Markov chain and HMM", "NARX and the energy forecast with weather", "Elman RNN and vanishing gradients",
    ]


# A lesson that needs longer than a minute, and why: BERT trains on the dates until their blanks are learned (20
# epochs), beside the movie-review run that shows what a minute does not learn.
SECONDS = {"bert-masking": 140}  # its dates run needs 20 epochs to learn the day


@pytest.mark.parametrize("name", LESSONS.names())
def test_every_lesson_is_complete(name):
    lesson = LESSONS.get(name)
    assert lesson.topic and lesson.text and lesson.notice and "TODO" not in lesson.notice
    assert lesson.layers and all(equations(layer_class(path)) for path in lesson.layers)
    assert lesson.view in LESSON_VIEWS
    assert 0 < lesson.seconds <= SECONDS.get(name, 60)  # measured on 2 CPU cores
    assert get_preset(name) is lesson.preset and name not in PRESETS  # the CLI trains it by the lesson's name
    for spec in lesson.preset.specs:
        spec.resolved()


def test_a_lesson_cannot_take_a_longer_presets_name():
    taken = next(iter(PRESETS))
    with pytest.raises(ValueError, match="has the name of a preset"):
        register_lesson(Lesson(topic="t", text="t", layers=(), preset=Preset(taken, "t", "t", ()), view="gates",
                               notice="t", seconds=1))
    assert taken not in LESSONS


# lesson -> data options that make its datasets tiny
TINY_DATA = {
    "markov-hmm": {"characters": 2000},
    "narx-energy": {},
    "elman-vanishing": {"samples": 50, "length_T": 10},
    "lstm-gates": {"samples": 50, "length_T": 10},
    "gru-gates": {"samples": 50, "length_T": 10},
    "esn-reservoir": {"length": 400, "lookback": 20, "horizon": 5},
    "bidirectional-dates": {"samples": 50},
}


@pytest.mark.parametrize("name", RECURRENT)
def test_the_lessons_models_build_on_their_data(name):
    for spec in LESSONS.get(name).preset.specs:
        spec = ExperimentSpec(spec.dataset, spec.model, data_options={**spec.data_options, **TINY_DATA[name]},
                              model_options=spec.model_options).resolved()
        model = build_model(spec.model, load_dataset(spec.dataset, **spec.data_options), spec.model_options)
        assert model.count_params() > 0
