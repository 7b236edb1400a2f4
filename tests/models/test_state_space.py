"""The s4d and mamba architectures: train on every task they offer, and generate from their states what the whole
model gives."""

import numpy as np
import pytest

from seqlab.tasks.language.generate import generate_text
from seqlab.models import build_model
from seqlab.models.registry import steps_of
from tests.compiled import compiled
from tests.language_run import TINY_TEXT
from tests.models.stepping import assert_steps_as_recomputing

TINY = {
    "s4d": {"width": 4, "state_size": 3, "layers": 2},
    "mamba": {"width": 4, "state_size": 3, "layers": 2, "expand": 2, "conv_width": 3},
}


@pytest.fixture(scope="module")
def language_runs(tmp_path_factory):
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    store = RunStore(tmp_path_factory.mktemp("runs"))
    return {
        name: run_experiment(
            ExperimentSpec("pydoc", name, data_options=TINY_TEXT, model_options=options, epochs=1, batch_size=32),
            store=store, savedmodel=False)
        for name, options in TINY.items()
    }


# Each task once and each architecture on two (an epoch compiles a scan: seconds each on 2 cores).
@pytest.mark.parametrize("name, task", [("s4d", "forecast"), ("s4d", "label"), ("mamba", "classify"),
                                        ("mamba", "regress")])
def test_a_tiny_epoch_trains_on_each_task(tiny, name, task):
    data = tiny[task]
    model = build_model(name, data, {**TINY[name], "dropout": 0.1})
    loss = "mse" if task in ("forecast", "regress") else "sparse_categorical_crossentropy"
    compiled(model, "adam", loss)
    split = data.splits["train"]
    history = model.fit(split.x[:64], split.y[:64], epochs=1, batch_size=32, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    assert model.predict(data.splits["test"].x[:2], verbose=0).shape[0] == 2


@pytest.mark.parametrize("name", list(TINY))
def test_stepping_from_the_states_gives_the_whole_models_probabilities_and_tokens(language_runs, name):
    run = language_runs[name]
    assert np.isfinite(run.metrics["model"]["cross_entropy"])
    model = run.load_model()
    assert_steps_as_recomputing(model, TINY_TEXT["lookback"])
    assert len(generate_text(run, "def ", tokens=5, temperature=0).tokens) == 5


def test_the_state_is_each_state_space_layers_parts():
    from seqlab.data import load_dataset

    data = load_dataset("pydoc", **TINY_TEXT)
    state = steps_of(build_model("mamba", data, TINY["mamba"])).start(3)
    # per block: the last w - 1 = 2 convolution inputs of E = 8 channels, and x (E, N)
    assert [s.shape for s in state] == [(3, 2, 8), (3, 8, 3)] * 2
    state = steps_of(build_model("s4d", data, TINY["s4d"])).start(3)
    assert [s.shape for s in state] == [(3, 4, 3)] * 4  # x_real, x_imag per layer


def test_bad_options_are_refused(tiny):
    with pytest.raises(ValueError, match="state_size"):
        build_model("s4d", tiny["forecast"], {**TINY["s4d"], "state_size": 0})
    with pytest.raises(ValueError, match="init"):
        build_model("s4d", tiny["forecast"], {**TINY["s4d"], "init": "hippo"})
    with pytest.raises(ValueError, match="expand"):
        build_model("mamba", tiny["forecast"], {**TINY["mamba"], "expand": 0})


@pytest.mark.parametrize("name", list(TINY))
def test_a_forecaster_read_one_step_at_a_time_gives_its_forecast(tiny, name):
    data = tiny["forecast"]
    model = build_model(name, data, TINY[name])
    window = data.splits["test"].x[:2].astype("float32")
    steps = steps_of(model)
    outputs, state = steps.read(window[:, :-1], steps.start(2))  # the window's rows before its last ...
    output, _ = steps.next(window[:, -1], state, window.shape[1] - 1)  # ... then its last, one step
    assert np.asarray(outputs).shape == (2, window.shape[1] - 1, data.horizon)  # an output after every step
    np.testing.assert_allclose(output, model.predict(window, verbose=0), rtol=1e-4, atol=1e-5)
