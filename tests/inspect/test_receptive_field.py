"""The TCN's probe: each block's output as the network computes it, and the taps that feed an output step."""

import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.inspect import saved_traced_layers, trace
from seqlab.inspect.receptive_field import ReceptiveFieldTrace
from seqlab.layers.tcn import receptive_positions
from seqlab.models import build_model


@pytest.fixture(scope="module")
def model():
    data = load_dataset("sine", length=200, lookback=12, horizon=2)
    return build_model("tcn", data, {"filters": 3, "kernel_size": 3, "layers": 2}), data.splits["test"].x[:1]


def test_the_trace_keeps_each_blocks_output_and_the_models_own_output(model):
    model, x = model
    tr = trace(model, x[0])
    [network] = tr.of(ReceptiveFieldTrace)
    assert list(network.arrays) == ["block_1", "block_2"] and network.arrays["block_2"].shape == (12, 3)
    np.testing.assert_allclose(tr.outputs, model.predict(x, verbose=0)[0], rtol=1e-5, atol=1e-6)
    tcn = model.get_layer("tcn")
    scaled = model.layers[1](x)  # the inputs' scaling, as the traced path reads them
    np.testing.assert_allclose(network.arrays["block_2"], np.asarray(tcn.read(scaled, tcn.initial_state(1))[0])[0],
                               rtol=1e-5, atol=1e-6)
    assert network.receptive_field == tcn.receptive_field == 13
    assert any("R = 1 + 2(k-1)" in block for block in network.equations)  # the network's docstring


@pytest.mark.parametrize("t", [0, 3, 11])
def test_the_taps_reach_exactly_the_inputs_the_layer_reads(model, t):
    network = trace(model[0], model[1][0]).layers[0]
    taps = network.taps(t)
    assert len(taps) == 1 + 2 * 2 and taps[0] == [] and {s for s, _ in taps[-1]} == {t}
    assert network.read_steps(t) == receptive_positions(t, 3, [1, 2])
    assert {s - source for s, source in taps[3] + taps[4]} <= {0, 2, 4}  # block 2's dilation 2, k = 3
    with pytest.raises(ValueError, match="t must be a step of the traced sequence, 0 to 11"):
        network.taps(12)


def test_a_saved_tcn_is_listed_as_traced(model, tmp_path):
    path = tmp_path / "model.keras"
    model[0].save(path)
    assert saved_traced_layers(path) == ["tcn"]
