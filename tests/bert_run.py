"""One tiny BERT pre-training run on a fake movie-review corpus (200 sentences, 1 epoch), for the BERT tests."""

import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest

from seqlab.runs import Run

TINY_BERT = {"layers": 1, "heads": 2, "width": 16, "ff_units": 32}
CONTEXT = 16  # max_tokens of the pre-training pairs: movie_sentiment sentences of 14 tokens fit a fine-tuned model


@contextmanager
def _offline_world(root: Path):
    """The fake vaderSentiment cache and the run store under ``root``, found through the environment."""
    from tests.data.test_movie_sentiment import cached, offline

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SEQLAB_CACHE", str(root / "cache"))
        patch.setenv("SEQLAB_RUNS_DIR", str(root / "runs"))
        patch.setattr(subprocess, "run", offline)
        cached(root / "cache" / "movie_sentiment")
        yield patch


def _pretraining() -> Run:
    """The pre-training run, trained once a test session (``tests.shared_store``); each module gets its own copy."""
    from seqlab.training import ExperimentSpec, run_experiment
    from tests.shared_store import SharedStore

    spec = ExperimentSpec("movie_reviews_mlm", "bert", {"max_tokens": CONTEXT}, TINY_BERT, epochs=1, batch_size=32)
    [run] = SharedStore("bert_pretraining").once(
        "movie", lambda store: [run_experiment(spec, store=store, savedmodel=False)])  # no test serves it
    return run


@pytest.fixture(scope="module")
def bert_world(tmp_path_factory):
    """``(monkeypatch, pre-training run)``: a fake vaderSentiment cache and a run store, both found through the
    environment for the whole module, and a finished ``masked_lm`` run in that store."""
    from tests.cli_store import copy_run

    root = tmp_path_factory.mktemp("bert")
    with _offline_world(root) as patch:
        source = _pretraining()
        yield patch, copy_run(root / "runs", source, source.run_id)


def pretrained_run(world) -> Run:
    return world[1]


def runs_root(world) -> Path:
    return pretrained_run(world).path.parent
