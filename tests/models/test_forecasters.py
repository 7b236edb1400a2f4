import keras
import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.models import build_model, get_architecture, list_architectures


@pytest.fixture(scope="module")
def sine():
    return load_dataset("sine", length=400, lookback=12, horizon=4)


def test_forecast_architectures_are_registered():
    assert {"lstm", "gru", "mlp"} <= {a.name for a in list_architectures("forecast")}


@pytest.mark.parametrize("name", ["lstm", "gru", "mlp"])
def test_models_take_raw_units_and_return_raw_units(sine, name):
    model = build_model(name, sine, {"units": 4})
    x = sine.splits["test"].x[:3]
    assert model(x).shape == (3, sine.horizon)
    # Scaling lives inside: an untrained model's output is centred on the target's mean.
    layer = model.get_layer("unscale_forecast")
    assert float(np.ravel(layer.mean)[0]) == pytest.approx(sine.scaler.mean[0])


def test_saved_model_reloads_identically(sine, tmp_path):
    model = build_model("lstm", sine, {"units": 4, "layers": 2})
    model.save(tmp_path / "m.keras")
    again = keras.saving.load_model(tmp_path / "m.keras")
    x = sine.splits["test"].x[:2]
    np.testing.assert_allclose(model(x), again(x), atol=1e-6)


@pytest.mark.parametrize(
    "options, message",
    [({"units": 0}, r"units must lie in \[1, 1024\]"), ({"dropout": 1.0}, "dropout"),
     ({"layers": -1}, "layers"), ({"width": 3}, "valid options")],
)
def test_bad_hyper_parameters(sine, options, message):
    with pytest.raises(ValueError, match=message):
        build_model("gru", sine, options)


def test_unknown_or_unfit_model():
    with pytest.raises(ValueError, match="valid models"):
        get_architecture("transformer9000")
