import keras
import numpy as np
import pytest
from keras.src import backend

from seqlab.layers import LSTM, LSTMCell
from seqlab.layers.recurrent import lstm as lstm_module

from ..layer_test import assert_dropout_only_while_training, assert_same_as_keras, run_layer_test

MASK = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [0, 1, 1, 1, 0]], dtype=bool)
VARIANTS = ["gates_only", "feedback", "no_forget_gate", "full"]


def numpy(tensor):
    return None if tensor is None else keras.ops.convert_to_numpy(tensor)


def sig(a):
    return 1.0 / (1.0 + np.exp(-a))


def notes_reference(x, cell, variant):
    """The notes' build-up (seed 004, "LSTMs"): input gate g_t, output gate q_t, cell state s_t,
    output z_t, written from the slides with the cell's lecture-named weight views."""
    V = {k: numpy(getattr(cell, f"W_x{k}")) for k in "ifco"}
    B = {k: numpy(getattr(cell, f"W_h{k}")) for k in "ifco"}
    b = {k: numpy(getattr(cell, f"b_{k}")) for k in "ifco"}

    def net(k, x_t, z_prev):
        a = x_t @ V[k] + b[k]
        return a if B[k] is None else a + z_prev @ B[k]

    z = s = np.zeros((x.shape[0], cell.units))
    outputs, cells = [], []
    for t in range(x.shape[1]):
        g = sig(net("i", x[:, t], z))  # input gate
        q = sig(net("o", x[:, t], z))  # output gate
        cell_input = np.tanh(net("c", x[:, t], z))
        if variant in ("gates_only", "feedback"):  # s_t = g_t o (cell input): no memory
            s = g * cell_input
        elif variant == "no_forget_gate":  # self-recurrency: s_t = s_{t-1} + g_t o ...
            s = s + g * cell_input
        else:  # ... with forget gate: s_t = f_t o s_{t-1} + g_t o ...
            s = sig(net("f", x[:, t], z)) * s + g * cell_input
        z = q * np.tanh(s)
        outputs.append(z)
        cells.append(s)
    return np.stack(outputs, axis=1), np.stack(cells, axis=1)


def test_layer_contract(tmp_path):
    run_layer_test(
        LSTM,
        {"units": 4, "return_sequences": True, "return_state": True},
        input_shape=(2, 5, 3),
        expected_output_shape=[(2, 5, 4), (2, 4), (2, 4)],
        tmp_path=tmp_path,
        expected_num_trainable_weights=3,
        expected_num_non_trainable_weights=0,
    )


def test_variant_layer_contract(tmp_path):
    layer = run_layer_test(
        LSTM,
        {"units": 4, "variant": "gates_only"},
        input_shape=(2, 5, 3),
        expected_output_shape=(2, 4),
        tmp_path=tmp_path,
        expected_num_trainable_weights=2,  # no recurrent_kernel
    )
    assert [tuple(w.shape) for w in layer.weights] == [(3, 12), (12,)]


@pytest.mark.parametrize("direction", ["seqlab_to_keras", "keras_to_seqlab"])
@pytest.mark.parametrize("zero_output_for_mask", [False, True])
def test_matches_keras(direction, zero_output_for_mask):
    options = dict(return_sequences=True, return_state=True, zero_output_for_mask=zero_output_for_mask)
    x = np.random.normal(size=(3, 5, 2)).astype("float32")
    assert_same_as_keras(LSTM(4, **options), keras.layers.LSTM(4, **options), x, MASK, direction)


def test_matches_keras_backwards_last_output():
    x = np.random.normal(size=(3, 5, 2)).astype("float32")
    assert_same_as_keras(LSTM(4, go_backwards=True), keras.layers.LSTM(4, go_backwards=True), x, MASK)


@pytest.mark.parametrize("variant", VARIANTS)
def test_variants_match_the_notes(variant):
    layer = LSTM(3, variant=variant, return_sequences=True, return_state=True, bias_initializer="random_normal")
    x = np.random.normal(size=(2, 6, 2)).astype("float32")
    outputs, h_last, c_last = (numpy(o) for o in layer(x))
    expected_outputs, expected_cells = notes_reference(x, layer.cell, variant)
    np.testing.assert_allclose(outputs, expected_outputs, atol=1e-5)
    np.testing.assert_allclose(h_last, expected_outputs[:, -1], atol=1e-5)
    np.testing.assert_allclose(c_last, expected_cells[:, -1], atol=1e-5)


def test_variant_weights_show_what_each_step_adds():
    counts = {}
    for variant in VARIANTS:
        cell = LSTMCell(4, variant=variant)
        cell.build((None, 3))
        counts[variant] = cell.count_params()
        assert (cell.W_hi is None) == (variant == "gates_only")
        assert (cell.W_xf is None) == (variant != "full")
    # 3 gates on x_t; + recurrent weights; same; + the forget gate.
    assert counts == {"gates_only": 48, "feedback": 96, "no_forget_gate": 96, "full": 128}


def test_views_are_keras_gate_slices():
    cell = LSTMCell(3)
    cell.build((None, 2))
    kernel, recurrent, bias = numpy(cell.kernel), numpy(cell.recurrent_kernel), numpy(cell.bias)
    for k, gate in enumerate("ifco"):  # Keras's packing order
        columns = slice(3 * k, 3 * k + 3)
        np.testing.assert_array_equal(numpy(getattr(cell, f"W_x{gate}")), kernel[:, columns])
        np.testing.assert_array_equal(numpy(getattr(cell, f"W_h{gate}")), recurrent[:, columns])
        np.testing.assert_array_equal(numpy(getattr(cell, f"b_{gate}")), bias[columns])
    np.testing.assert_array_equal(numpy(cell.b_f), np.ones(3))  # unit_forget_bias


@pytest.mark.parametrize("variant", VARIANTS)
def test_step_internals_trace_the_layer(variant):
    layer = LSTM(3, variant=variant, return_sequences=True)
    x = np.random.normal(size=(2, 4, 2)).astype("float32")
    outputs = numpy(layer(x))
    cell = layer.cell
    states = cell.get_initial_state(batch_size=2)
    c_prev = np.zeros((2, 3))
    for t in range(4):
        h, states, gates = cell.step(x[:, t].astype("float64"), states)  # cast to the cell's dtype
        gates = {name: numpy(value) for name, value in gates.items()}
        assert tuple(gates) == LSTMCell.internal_names
        np.testing.assert_allclose(gates["h"], outputs[:, t], atol=1e-6)
        np.testing.assert_allclose(gates["c"], gates["f"] * c_prev + gates["i"] * gates["c_tilde"], atol=1e-6)
        np.testing.assert_allclose(gates["h"], gates["o"] * np.tanh(gates["c"]), atol=1e-6)
        if variant != "full":  # the constant forget gate the variant implies
            np.testing.assert_array_equal(gates["f"], 1.0 if variant == "no_forget_gate" else 0.0)
        c_prev = gates["c"]


def test_dropout_only_while_training():
    assert_dropout_only_while_training(LSTM(8, dropout=0.5, recurrent_dropout=0.5, seed=1))


# The fused (cuDNN) path: on this CPU Keras's backend.lstm declines, so fakes stand in for it.


def _fake_fused(calls, result=None):
    def fused(sequences, h0, c0, mask, **kwargs):
        calls.append(kwargs)
        if result is None:
            raise NotImplementedError
        return result(sequences, h0)

    return fused


def _zeros_result(sequences, h0):
    zeros = keras.ops.zeros_like(h0)
    return zeros, keras.ops.zeros((sequences.shape[0], sequences.shape[1], h0.shape[-1])), [zeros, zeros]


def test_fused_path_is_taken_with_the_cells_weights(monkeypatch):
    calls = []
    monkeypatch.setattr(lstm_module.backend, "lstm", _fake_fused(calls, _zeros_result))
    layer = LSTM(4, return_sequences=True)
    x = np.random.normal(size=(2, 5, 3)).astype("float32")
    np.testing.assert_array_equal(numpy(layer(x)), 0.0)  # the fused result is what comes back
    (kwargs,) = calls
    assert kwargs["kernel"] is layer.cell.kernel and kwargs["recurrent_kernel"] is layer.cell.recurrent_kernel
    assert kwargs["bias"] is layer.cell.bias and kwargs["return_sequences"] is True


def test_fallback_to_the_cell_when_the_fused_kernel_declines(monkeypatch):
    x = np.random.normal(size=(3, 5, 2)).astype("float32")
    reference = LSTM(4, return_sequences=True, use_cudnn=False)
    expected = numpy(reference(x, mask=MASK))
    calls = []
    monkeypatch.setattr(lstm_module.backend, "lstm", _fake_fused(calls))
    layer = LSTM(4, return_sequences=True)
    layer.build(x.shape)
    layer.set_weights(reference.get_weights())
    np.testing.assert_allclose(numpy(layer(x, mask=MASK)), expected, atol=1e-6)
    assert len(calls) == 1


@pytest.mark.parametrize(
    "kwargs", [{"variant": "no_forget_gate"}, {"recurrent_dropout": 0.2}, {"use_cudnn": False}]
)
def test_fused_path_is_not_tried_when_ineligible(monkeypatch, kwargs):
    calls = []
    monkeypatch.setattr(lstm_module.backend, "lstm", _fake_fused(calls, _zeros_result))
    LSTM(4, **kwargs)(np.ones((2, 5, 3), dtype="float32"))
    assert calls == []


def has_gpu():
    if backend.backend() != "tensorflow":
        return True  # not checked here: skip
    import tensorflow as tf

    return bool(tf.config.list_physical_devices("GPU"))


@pytest.mark.skipif(has_gpu(), reason="a GPU may take the fused path")
def test_use_cudnn_true_without_a_fused_kernel_is_an_error():
    with pytest.raises(ValueError, match="use_cudnn=True"):
        LSTM(4, use_cudnn=True)(np.ones((2, 5, 3), dtype="float32"))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"units": 0}, "units"),
        ({"units": 4, "variant": "peephole"}, "variant"),
        ({"units": 4, "recurrent_activation": "nope"}, "recurrent_activation"),
        ({"units": 4, "use_cudnn": "yes"}, "use_cudnn"),
        ({"units": 4, "dropout": 1.5}, "dropout"),
    ],
)
def test_argument_errors_name_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        LSTM(**kwargs)


def test_wrong_rank_is_a_clear_error():
    with pytest.raises(ValueError, match="expected ndim=3"):
        LSTM(3)(np.zeros((2, 5, 3, 1), dtype="float32"))
