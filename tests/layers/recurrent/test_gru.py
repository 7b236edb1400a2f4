import keras
import numpy as np
import pytest

from seqlab.layers import GRU, GRUCell
from seqlab.layers.recurrent import gru as gru_module

from ..layer_test import assert_dropout_only_while_training, assert_same_as_keras, run_layer_test

MASK = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [0, 1, 1, 1, 0]], dtype=bool)


def numpy(tensor):
    return None if tensor is None else keras.ops.convert_to_numpy(tensor)


def sig(a):
    return 1.0 / (1.0 + np.exp(-a))


@pytest.mark.parametrize("reset_after, bias_shape", [(True, (2, 12)), (False, (12,))])
def test_layer_contract(tmp_path, reset_after, bias_shape):
    layer = run_layer_test(
        GRU,
        {"units": 4, "reset_after": reset_after, "return_sequences": True, "return_state": True},
        input_shape=(2, 5, 3),
        expected_output_shape=[(2, 5, 4), (2, 4)],
        tmp_path=tmp_path,
        expected_num_trainable_weights=3,
    )
    assert tuple(layer.cell.bias.shape) == bias_shape


@pytest.mark.parametrize("direction", ["seqlab_to_keras", "keras_to_seqlab"])
@pytest.mark.parametrize("reset_after", [True, False])
@pytest.mark.parametrize("zero_output_for_mask", [False, True])
def test_matches_keras(direction, reset_after, zero_output_for_mask):
    options = dict(
        reset_after=reset_after,
        return_sequences=True,
        return_state=True,
        zero_output_for_mask=zero_output_for_mask,
    )
    x = np.random.normal(size=(3, 5, 2)).astype("float32")
    assert_same_as_keras(GRU(4, **options), keras.layers.GRU(4, **options), x, MASK, direction)


@pytest.mark.parametrize("reset_after", [True, False])
def test_numpy_reference_from_the_equations(reset_after):
    layer = GRU(3, reset_after=reset_after, return_sequences=True, bias_initializer="random_normal")
    x = np.random.normal(size=(2, 5, 2)).astype("float32")
    outputs = numpy(layer(x))
    c = layer.cell
    W = {name: numpy(getattr(c, name)) for name in ("W_xz", "W_xr", "W_xh", "W_hz", "W_hr", "W_hh")}
    b = {name: numpy(getattr(c, name)) for name in ("b_z", "b_r", "b_h", "b_hz", "b_hr", "b_hh")}
    assert (b["b_hh"] is None) == (not reset_after)
    h = np.zeros((2, 3))
    for t in range(5):
        x_t = x[:, t]
        if reset_after:
            z = sig(x_t @ W["W_xz"] + b["b_z"] + h @ W["W_hz"] + b["b_hz"])
            r = sig(x_t @ W["W_xr"] + b["b_r"] + h @ W["W_hr"] + b["b_hr"])
            h_tilde = np.tanh(x_t @ W["W_xh"] + b["b_h"] + r * (h @ W["W_hh"] + b["b_hh"]))
        else:  # the notes' form: reset before the product
            z = sig(x_t @ W["W_xz"] + h @ W["W_hz"] + b["b_z"])
            r = sig(x_t @ W["W_xr"] + h @ W["W_hr"] + b["b_r"])
            h_tilde = np.tanh(x_t @ W["W_xh"] + (r * h) @ W["W_hh"] + b["b_h"])
        h = z * h + (1 - z) * h_tilde  # Keras's z: the notes' 1 - z
        np.testing.assert_allclose(outputs[:, t], h, atol=1e-5)


def test_step_internals_trace_the_layer():
    layer = GRU(3, return_sequences=True)
    x = np.random.normal(size=(2, 4, 2)).astype("float32")
    outputs = numpy(layer(x))
    cell = layer.cell
    states = cell.get_initial_state(batch_size=2)
    h_prev = np.zeros((2, 3))
    for t in range(4):
        h, states, gates = cell.step(x[:, t], states)
        gates = {name: numpy(value) for name, value in gates.items()}
        assert tuple(gates) == GRUCell.internal_names
        np.testing.assert_allclose(gates["h"], outputs[:, t], atol=1e-6)
        mixed = gates["z"] * h_prev + (1 - gates["z"]) * gates["h_tilde"]
        np.testing.assert_allclose(gates["h"], mixed, atol=1e-6)
        h_prev = gates["h"]


def test_dropout_only_while_training():
    assert_dropout_only_while_training(GRU(8, dropout=0.5, recurrent_dropout=0.5, seed=1))


def _fake_fused(calls, zeros=False):
    def fused(sequences, h0, mask, **kwargs):
        calls.append(kwargs)
        if not zeros:
            raise NotImplementedError
        last = keras.ops.zeros_like(h0)
        return last, keras.ops.zeros((sequences.shape[0], sequences.shape[1], h0.shape[-1])), [last]

    return fused


@pytest.mark.parametrize("reset_after", [True, False])
def test_fused_path_is_taken_with_the_cells_weights(monkeypatch, reset_after):
    calls = []
    monkeypatch.setattr(gru_module.backend, "gru", _fake_fused(calls, zeros=True))
    layer = GRU(4, reset_after=reset_after)
    np.testing.assert_array_equal(numpy(layer(np.ones((2, 5, 3), dtype="float32"))), 0.0)
    (kwargs,) = calls
    assert kwargs["kernel"] is layer.cell.kernel and kwargs["bias"] is layer.cell.bias
    assert kwargs["reset_after"] is reset_after  # Keras's backend declines reset_after=False itself


def test_fallback_to_the_cell_when_the_fused_kernel_declines(monkeypatch):
    x = np.random.normal(size=(3, 5, 2)).astype("float32")
    reference = GRU(4, return_sequences=True, use_cudnn=False)
    expected = numpy(reference(x, mask=MASK))
    calls = []
    monkeypatch.setattr(gru_module.backend, "gru", _fake_fused(calls))
    layer = GRU(4, return_sequences=True)
    layer.build(x.shape)
    layer.set_weights(reference.get_weights())
    np.testing.assert_allclose(numpy(layer(x, mask=MASK)), expected, atol=1e-6)
    assert len(calls) == 1


@pytest.mark.parametrize("kwargs", [{"recurrent_dropout": 0.2}, {"use_cudnn": False}])
def test_fused_path_is_not_tried_when_ineligible(monkeypatch, kwargs):
    calls = []
    monkeypatch.setattr(gru_module.backend, "gru", _fake_fused(calls, zeros=True))
    GRU(4, **kwargs)(np.ones((2, 5, 3), dtype="float32"))
    assert calls == []


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"units": 0}, "units"),
        ({"units": 4, "activation": "tanhh"}, "activation"),
        ({"units": 4, "reset_after": "yes"}, "reset_after"),
        ({"units": 4, "use_cudnn": "always"}, "use_cudnn"),
        ({"units": 4, "recurrent_dropout": 1.0}, "recurrent_dropout"),
    ],
)
def test_argument_errors_name_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GRU(**kwargs)
