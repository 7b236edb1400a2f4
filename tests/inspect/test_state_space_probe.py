"""The state-space probe: x_t at every step as the layer computes it, padding left out, the equations beside it."""

import keras
import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.inspect import trace
from seqlab.inspect.state_space import StateSpaceTrace
from seqlab.models import build_model


@pytest.fixture(scope="module")
def forecaster():
    data = load_dataset("sine", length=200, lookback=12, horizon=2)
    return build_model("s4d", data, {"width": 3, "state_size": 4, "layers": 2}), data.splits["test"].x[:1]


def test_the_trace_keeps_each_layers_state_and_the_models_own_output(forecaster):
    model, x = forecaster
    tr = trace(model, x[0])
    first, second = tr.of(StateSpaceTrace)
    assert (first.name, second.name) == ("s4d_1", "s4d_2") and first.kind == "DiagonalStateSpace"
    assert list(first.arrays) == ["x_real", "x_imag"] and first.arrays["x_real"].shape == (12, 3, 4)
    np.testing.assert_allclose(tr.outputs, model.predict(x, verbose=0)[0], rtol=1e-5, atol=1e-6)
    s4d = model.get_layer("s4d_1")
    inputs = model.get_layer("in_projection")(model.layers[1](x))  # what the first layer reads
    expected = np.asarray(s4d.states(inputs)[1])[0]
    np.testing.assert_allclose(first.arrays["x_imag"], expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(first.channel(2)[:, 1], np.hypot(first.arrays["x_real"], expected)[:, 2, 1],
                               rtol=1e-5)
    assert any(r"\bar{A}" in block for block in first.equations)
    assert len(first.top_channels(2)) == 2
    with pytest.raises(ValueError, match="channel must be 0 to 2"):
        first.channel(3)


def test_a_mamba_blocks_state_is_its_selective_layers_over_the_inner_channels(forecaster):
    data = load_dataset("sine", length=200, lookback=12, horizon=2)
    model = build_model("mamba", data, {"width": 3, "state_size": 4, "layers": 1, "expand": 2})
    [block] = trace(model, data.splits["test"].x[0]).of(StateSpaceTrace)
    assert block.kind == "MambaBlock" and list(block.arrays) == ["x"] and block.arrays["x"].shape == (12, 6, 4)
    assert any(r"\mathrm{SiLU}" in b for b in block.equations) and any(r"\Delta_t" in b for b in block.equations)


def test_padded_steps_keep_the_state_and_are_left_out():
    from seqlab.layers import DiagonalStateSpace

    ids = keras.Input((6,), dtype="int32")
    x = keras.layers.Embedding(10, 3, mask_zero=True)(ids)
    model = keras.Model(ids, DiagonalStateSpace(state_size=4, init="real", name="ssm")(x))
    [ssm] = trace(model, np.array([3, 4, 5, 0, 0, 0])).of(StateSpaceTrace)
    assert ssm.mask.tolist() == [True] * 3 + [False] * 3
    np.testing.assert_array_equal(ssm.arrays["x"][3:], np.repeat(ssm.arrays["x"][2:3], 3, axis=0))
    assert np.isnan(ssm.magnitude[3:]).all() and not np.isnan(ssm.magnitude[:3]).any()
