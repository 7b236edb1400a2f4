"""Every lesson shrunk to seconds (one epoch, small data, small models), and its tiny runs trained once per test
session in one shared store (``tests.shared_store``) for the app, claim and browser tests, without their
SavedModels (a lesson never serves one).

The runs carry the names the lesson gives them, so a dashboard whose lessons are shrunk the same way
(``tests.browser.tiny_lessons``) serves them by identity: the same spec, data and code.
"""

from __future__ import annotations

import dataclasses

from seqlab.lessons import LESSONS
from seqlab.models import get_architecture
from seqlab.runs import Run
from seqlab.training import ExperimentSpec
from tests.bert_run import CONTEXT, TINY_BERT
from tests.language_run import TINY_TEXT
from tests.shared_store import SharedStore

ADDING = ({"length_T": 12, "samples": 120}, {"units": 4})
# lesson -> (data options, model options) over the lesson's own, each run one epoch
RECURRENT = {
    "markov-hmm": ({"characters": 3000, "lookback": 32, "stride": 32}, {"states": 3, "iterations": 2}),
    "narx-energy": ({}, {"units": 4}),
    "elman-vanishing": ADDING,
    "lstm-gates": ADDING,
    "gru-gates": ADDING,
    "esn-reservoir": ({"length": 600, "lookback": 30, "horizon": 5}, {"units": 20}),
    "bidirectional-dates": ({"samples": 100, "max_tokens": 56}, {"units": 4}),
}
LANGUAGE = {
    "tokens-and-embeddings": ({"max_tokens": 16, "vocab_size": 200}, {}),
    "rnn-vs-cnn-sentiment": ({"max_tokens": 16}, {"units": 4, "filters": 4}),
    "encoder-decoder-attention": ({"last": 40}, {"units": 8, "embedding_dim": 8}),
    "luong-local-attention": ({"samples": 200, "max_length": 5}, {"units": 8, "embedding_dim": 8}),
    "self-attention-heads": ({"max_tokens": 16}, {"width": 8, "ff_units": 16}),
    "positional-encoding": ({"samples": 200, "max_length": 5}, {"width": 8, "ff_units": 16}),
    "gpt-generation": (TINY_TEXT, {"width": 8, "heads": 2, "layers": 1}),
}
# BERT's dataset -> its data options: 200 dates; movie-review pairs of 16 tokens, as ``tests.bert_run`` trains them
BERT = {"spelt_dates_mlm": {"samples": 200}, "movie_reviews_mlm": {"max_tokens": CONTEXT}}
STATE_SPACE = (ADDING[0], {"s4d": {"width": 3, "state_size": 4, "layers": 1}, "lstm": {"units": 4}})


def _shrunk(spec: ExperimentSpec, data: dict, model: dict, **changes) -> ExperimentSpec:
    """``spec`` for one epoch, ``data`` over its data options and the ``model`` options its architecture takes."""
    takes = get_architecture(spec.model).defaults
    return dataclasses.replace(
        spec, epochs=1, early_stopping=0, data_options={**spec.data_options, **data},
        model_options={**spec.model_options, **{k: v for k, v in model.items() if k in takes}}, **changes,
    )


def tiny_specs(name: str) -> tuple[ExperimentSpec, ...]:
    """Lesson ``name``'s specs shrunk to seconds."""
    specs = LESSONS.get(name).preset.specs
    if name in RECURRENT:
        return tuple(_shrunk(spec, *RECURRENT[name]) for spec in specs)
    if name in LANGUAGE:
        data, model = LANGUAGE[name]
        # The GPT reads the pydoc text here (its own options only), every other run its lesson's data.
        return tuple(_shrunk(dataclasses.replace(spec, dataset="pydoc", data_options={}) if spec.model == "gpt"
                             else spec, data, model, steps=0, jit_compile=False, steps_per_execution=1)
                     for spec in specs)
    if name == "bert-masking":
        return tuple(dataclasses.replace(spec, data_options={**spec.data_options, **BERT[spec.dataset]},
                                         model_options=TINY_BERT, epochs=1, batch_size=32) for spec in specs)
    data, models = STATE_SPACE
    return tuple(dataclasses.replace(spec, epochs=1, data_options=data, model_options=models[spec.model])
                 for spec in specs)


class LessonRuns(SharedStore):
    """``lesson_runs(name)``: the tiny runs of lesson ``name``, trained by the first test that asks."""

    def __call__(self, name: str) -> list[Run]:
        from seqlab.training import run_experiment

        names = LESSONS.get(name).preset.run_names()
        return self.once(name, lambda store: [run_experiment(spec, store=store, name=run_name, savedmodel=False)
                                              for spec, run_name in zip(tiny_specs(name), names)])
