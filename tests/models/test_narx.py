import keras
import numpy as np
import pytest

from seqlab.checks import RANGES
from seqlab.data import load_dataset
from seqlab.models import build_model, get_architecture, list_architectures
from seqlab.training import ExperimentSpec, run_experiment

TINY = {"length": 400, "lookback": 12, "horizon": 4}


def test_narx_is_a_forecaster_listed_after_the_mlp():
    names = [a.name for a in list_architectures("forecast")]
    assert names.index("narx") == names.index("mlp") + 1  # lecture order
    arch = get_architecture("narx").as_dict()
    assert arch["ranges"]["lag"] == [0, RANGES["lookback"].bounds()[1]]  # rows, as lookback; 0: all of them
    assert arch["choices"]["activation"] == ["tanh", "relu", "sigmoid"]
    with pytest.raises(ValueError, match="does not fit a 'regress' task"):
        get_architecture("narx", "regress")


def _with_zero_f(model):
    """NARX's output layer set to zero: f = 0, what is left is the residual y_{t-1} (or nothing)."""
    narx = model.get_layer("narx")
    narx.output_kernel.assign(np.zeros(narx.output_kernel.shape))
    narx.output_bias.assign(np.zeros(narx.output_bias.shape))
    return model


@pytest.mark.parametrize("residual", [False, True])
def test_the_head_starts_as_the_identity_on_narxs_direct_forecasts(tiny, residual):
    data = tiny["forecast"]
    model = build_model("narx", data, {"lag": 5, "units": 4, "layers": 2, "residual": residual})
    x = data.splits["test"].x[:3]
    assert model(x).shape == (3, data.horizon)
    np.testing.assert_array_equal(model.get_layer("forecast").get_weights()[0], np.eye(data.horizon))
    forecast = keras.ops.convert_to_numpy(_with_zero_f(model)(x))
    # In the residual form, f = 0 is the naive forecast (the last value); else the training mean.
    expected = x[:, -1, 0] if residual else np.full(3, data.scaler.mean[0])
    np.testing.assert_allclose(forecast, np.repeat(expected[:, None], data.horizon, axis=1), atol=1e-4)


def test_lag_0_reads_the_whole_window(tiny):
    model = build_model("narx", tiny["forecast"], {"units": 2})
    assert model.get_layer("narx").lag == tiny["forecast"].lookback == 10


def test_the_model_reloads_identically(tiny, tmp_path):
    data = tiny["forecast"]
    model = build_model("narx", data, {"lag": 3, "units": 4, "activation": "relu", "residual": True})
    model.save(tmp_path / "m.keras")
    again = keras.saving.load_model(tmp_path / "m.keras")
    x = data.splits["test"].x[:2]
    np.testing.assert_allclose(model(x), again(x), atol=1e-6)
    assert again.get_layer("narx").get_config() == model.get_layer("narx").get_config()


@pytest.mark.parametrize(
    "options, message",
    [
        ({"lag": 11}, r"lag must be at most the lookback \(10\) for model 'narx', got 11"),
        ({"lag": -1}, r"lag must lie in \[0, \d+\]"),
        ({"activation": "softmax"}, "activation must be one of tanh, relu, sigmoid"),
        ({"residual": "yes"}, "residual must be true or false"),
        ({"layers": 9}, r"layers must lie in \[1, 8\]"),
    ],
)
def test_bad_options_are_refused(tiny, options, message):
    with pytest.raises(ValueError, match=message):
        build_model("narx", tiny["forecast"], options)


def test_narx_learns_the_sine_better_than_naive(runs_dir):
    spec = ExperimentSpec(
        "sine", "narx", epochs=2, learning_rate=1e-2, batch_size=32, data_options=TINY,
        model_options={"units": 8, "residual": True},
    )
    run = run_experiment(spec, savedmodel=False)
    assert run.status == "completed"
    assert run.metrics["model"]["mae"] < run.metrics["baselines"]["naive"]["mae"]
    # The run's model.keras passes seqlab's checked loader and forecasts what was stored.
    x = load_dataset("sine", **TINY).splits["test"].x
    np.testing.assert_allclose(run.load_model().predict(x, verbose=0), run.predictions()["y_pred"], atol=1e-5)
