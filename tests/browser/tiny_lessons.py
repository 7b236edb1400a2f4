"""Every lesson shrunk to seconds, for the browser: its runs trained in the test, then served by the dashboard.

The tiny options are the app tests' own (one epoch, small data). ``train_lessons`` trains lessons' tiny runs into a
run store; ``serve`` runs ``streamlit run`` in a process whose lessons are these tiny ones, so every lesson opens
with its result at once (a lesson's runs are served by identity: the same spec, data and code).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from seqlab.lessons import LESSONS
from seqlab.training import ExperimentSpec
from tests.app import test_lessons_language as language
from tests.app import test_lessons_recurrent as recurrent
from tests.app.test_lessons_state_space import TINY_MODELS as STATE_SPACE_MODELS
from tests.bert_run import CONTEXT, TINY_BERT

STATE_SPACE_DATA = {"length_T": 12, "samples": 120}


def tiny_specs(name: str) -> tuple[ExperimentSpec, ...]:
    """The lesson's specs at the app tests' tiny options."""
    specs = LESSONS.get(name).preset.specs
    if name in recurrent.TINY:
        return tuple(recurrent.tiny(spec, name) for spec in specs)
    if name in language.TINY:
        return tuple(language.tiny(name))
    if name == "bert-masking":
        return tuple(dataclasses.replace(spec, data_options={**spec.data_options, "max_tokens": CONTEXT},
                                         model_options=TINY_BERT, epochs=1, batch_size=32) for spec in specs)
    return tuple(dataclasses.replace(spec, epochs=1, data_options=STATE_SPACE_DATA,
                                     model_options=STATE_SPACE_MODELS[spec.model]) for spec in specs)


def shrink_lessons() -> None:
    """Swap every lesson's preset for its tiny specs (in this process: the server's)."""
    for name in LESSONS.names():
        lesson = LESSONS.get(name)
        preset = dataclasses.replace(lesson.preset, specs=tiny_specs(name))
        LESSONS._entries[name] = dataclasses.replace(lesson, preset=preset)


def train_lessons(runs_dir: Path, names: list[str]) -> None:
    """The tiny runs of the lessons ``names``, trained into ``runs_dir`` under the names the lessons give them."""
    from seqlab.runs import RunStore
    from seqlab.training import run_experiment

    store = RunStore(runs_dir)
    for name in names:
        preset = LESSONS.get(name).preset
        for spec, run_name in zip(tiny_specs(name), preset.run_names()):
            run_experiment(spec, store=store, name=run_name)


def serve(argv: list[str]) -> None:
    """``streamlit`` with ``argv`` (``run streamlit_app.py ...``) in this process, its lessons shrunk."""
    from streamlit.web.cli import main

    from seqlab.training.identity import code_version

    shrink_lessons()
    code_version()  # hashed now, as the test's process hashed it: an edit meanwhile would change every identity
    sys.argv = ["streamlit", *argv]
    main()


if __name__ == "__main__":
    serve(sys.argv[1:])
