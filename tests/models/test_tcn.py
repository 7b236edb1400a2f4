"""The TCN architecture: trains on every task it offers, and generates from its shift buffers what recomputing gives."""

import numpy as np
import pytest

from seqlab.tasks.language.generate import generate_text
from seqlab.models import build_model, get_architecture
from seqlab.models.registry import steps_of
from tests.compiled import compiled
from tests.language_run import TINY_TEXT
from tests.models.stepping import assert_steps_as_recomputing

TINY = {"filters": 4, "kernel_size": 2, "layers": 2}


@pytest.fixture(scope="module")
def language_run(tmp_path_factory):
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    spec = ExperimentSpec("pydoc", "tcn", data_options=TINY_TEXT, model_options=TINY, epochs=1, batch_size=32)
    return run_experiment(spec, store=RunStore(tmp_path_factory.mktemp("runs")), savedmodel=False)


@pytest.mark.parametrize("task", ["forecast", "classify", "label"])
def test_a_tiny_epoch_trains_on_each_task(tiny, task):
    data = tiny[task]
    model = build_model("tcn", data, {**TINY, "dropout": 0.1})
    compiled(model, "adam", "mse" if task == "forecast" else "sparse_categorical_crossentropy")
    split = data.splits["train"]
    history = model.fit(split.x[:64], split.y[:64], epochs=1, batch_size=32, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    assert model.predict(data.splits["test"].x[:2], verbose=0).shape[0] == 2


def test_a_language_run_trains_and_generates(language_run):
    assert np.isfinite(language_run.metrics["model"]["cross_entropy"])
    out = generate_text(language_run, "def ", tokens=5, temperature=0)
    assert len(out.tokens) == 5


def test_stepping_from_the_buffers_gives_the_log_probs_of_recomputing_the_window(language_run):
    assert_steps_as_recomputing(language_run.load_model(), TINY_TEXT["lookback"])  # from its shift buffers


def test_the_buffers_hold_each_convolutions_last_inputs_only(tiny):
    model = build_model("tcn", tiny["forecast"], TINY)  # k = 2, dilations 1, 2: buffers of 1, 1, 2, 2 steps
    state = steps_of(model).start(3)
    assert [s.shape for s in state] == [(3, 1, 1), (3, 1, 4), (3, 2, 4), (3, 2, 4)]


def test_the_dilations_double_and_bad_options_are_refused(tiny):
    from seqlab.models.tcn import doubling_dilations

    assert doubling_dilations(4) == [1, 2, 4, 8]
    assert get_architecture("tcn").steps is not None
    with pytest.raises(ValueError, match="kernel_size"):
        build_model("tcn", tiny["forecast"], {**TINY, "kernel_size": 0})
