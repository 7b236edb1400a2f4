"""trace(): the traced states are the layer's own, in every arrangement a model uses."""

import importlib

import keras
import numpy as np
import pytest

from seqlab.inspect import Trace, is_recurrent, recurrent_layers, trace
from seqlab.layers import ESN, GRU, LSTM, SimpleRNN
from seqlab.layers.docs import equations

T, F = 7, 3
TOL = 1e-5


@pytest.fixture
def window():
    return np.random.default_rng(0).normal(size=(T, F)).astype("float32")


def submodel_output(model, layer_name, x):
    """The model's own intermediate output of one layer (Keras's path, not the trace)."""
    return np.asarray(keras.Model(model.input, model.get_layer(layer_name).output)(x[None]))[0]


def stacked_model(cell_layer, bidirectional=False, merge_mode="concat", **options):
    inputs = keras.Input((T, F))
    x = keras.layers.Normalization(axis=-1, mean=[0.5, -1.0, 2.0], variance=[4.0, 1.0, 0.25], name="scale")(inputs)
    first = cell_layer(5, return_sequences=True, name="rnn_1", **options)
    second = cell_layer(4, return_sequences=False, name="rnn_2", **options)
    if bidirectional:
        first = keras.layers.Bidirectional(first, merge_mode=merge_mode, name="bi_1")
        second = keras.layers.Bidirectional(second, merge_mode=merge_mode, name="bi_2")
    x = first(x)
    x = keras.layers.Dense(6, activation="tanh", name="between")(x)  # a non-recurrent layer in between
    x = second(x)
    outputs = keras.layers.Dense(2, name="head")(x)
    return keras.Model(inputs, outputs)


@pytest.mark.parametrize("cell_layer", [LSTM, GRU, SimpleRNN])
def test_stacked_final_state_is_the_layers_own_output(cell_layer, window):
    model = stacked_model(cell_layer)
    tr = trace(model, window)
    assert isinstance(tr, Trace) and [layer.name for layer in tr.layers] == ["rnn_1", "rnn_2"]
    first, second = tr.layers
    # Layer 1 returns sequences: every traced h_t is the model's intermediate output at t.
    np.testing.assert_allclose(first.arrays["h"], submodel_output(model, "rnn_1", window), atol=TOL)
    # Layer 2 read the traced layer-1 output through the Dense in between; its h_T is its output.
    np.testing.assert_allclose(second.final_state, submodel_output(model, "rnn_2", window), atol=TOL)
    np.testing.assert_allclose(second.inputs, submodel_output(model, "between", window), atol=TOL)
    np.testing.assert_allclose(tr.outputs, np.asarray(model(window[None]))[0], atol=TOL)
    assert first.arrays["h"].shape == (T, 5) and second.arrays["h"].shape == (T, 4)
    assert first.time_labels == list(range(1, T + 1))


def test_lstm_internals_are_named_and_consistent(window):
    model = stacked_model(LSTM)
    layer = trace(model, window).layers[0]
    assert layer.kind == "LSTMCell" and layer.direction == "forward"
    assert list(layer.arrays) == ["i", "f", "o", "c_tilde", "c", "h"]
    assert layer.gates == ["i", "f", "o", "c_tilde"]
    a = layer.arrays
    for gate in ("i", "f", "o"):
        assert np.all((a[gate] > 0) & (a[gate] < 1))
    # The cell's own equations hold between the traced arrays: c_t = f c_{t-1} + i c~_t, h_t = o tanh(c_t).
    c_prev = np.vstack([np.zeros((1, 5)), a["c"][:-1]])
    np.testing.assert_allclose(a["c"], a["f"] * c_prev + a["i"] * a["c_tilde"], atol=TOL)
    np.testing.assert_allclose(a["h"], a["o"] * np.tanh(a["c"]), atol=TOL)
    assert layer.equations == equations(type(model.get_layer("rnn_1").cell))[:6]


@pytest.mark.parametrize("merge_mode", ["concat", "sum", "mul", "ave"])
def test_bidirectional_traces_both_directions(merge_mode, window):
    model = stacked_model(GRU, bidirectional=True, merge_mode=merge_mode)
    tr = trace(model, window)
    assert [(layer.name, layer.direction) for layer in tr.layers] == [
        ("bi_1", "forward"), ("bi_1", "backward"), ("bi_2", "forward"), ("bi_2", "backward")
    ]
    assert tr.layer("bi_1", "backward").label == "bi_1 (backward)"
    fwd, bwd = tr.layer("bi_1"), tr.layer("bi_1/backward")
    merge = {
        "concat": lambda a, b: np.concatenate([a, b], axis=-1),
        "sum": np.add, "mul": np.multiply, "ave": lambda a, b: (a + b) / 2,
    }[merge_mode]
    # Rows are the input's time steps in both directions, so the merged sequence is row-wise.
    np.testing.assert_allclose(merge(fwd.arrays["h"], bwd.arrays["h"]), submodel_output(model, "bi_1", window), atol=TOL)
    top_f, top_b = tr.layer("bi_2"), tr.layer("bi_2", "backward")
    assert np.allclose(top_b.final_state, top_b.arrays["h"][0])  # backward: the last step read is t = 1
    np.testing.assert_allclose(merge(top_f.final_state, top_b.final_state), submodel_output(model, "bi_2", window), atol=TOL)
    np.testing.assert_allclose(tr.outputs, np.asarray(model(window[None]))[0], atol=TOL)


def test_backward_direction_reads_from_the_end(window):
    layer = SimpleRNN(3, return_sequences=True, go_backwards=True)
    tr = trace(layer, window)
    own = np.asarray(layer(window[None]))[0]  # Keras order: processing order, x_T first
    np.testing.assert_allclose(tr.layers[0].arrays["h"], own[::-1], atol=TOL)


def test_esn_reservoir_state(window):
    esn = ESN(20, seed=1)
    tr = trace(esn, window)
    layer = tr.layers[0]
    assert layer.kind == "ESNCell" and list(layer.arrays) == ["h_tilde", "h"]
    np.testing.assert_allclose(layer.arrays["h"], np.asarray(esn(window[None]))[0], atol=TOL)
    assert any("B z_{t-1}" in block for block in layer.equations)


def test_esn_model_final_state(window):
    inputs = keras.Input((T, F))
    x = ESN(12, seed=0, return_sequences=False, name="reservoir")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(1)(x))
    tr = trace(model, window)
    np.testing.assert_allclose(tr.layers[0].final_state, submodel_output(model, "reservoir", window), atol=TOL)


@pytest.mark.parametrize("cell_layer", [LSTM, GRU])
@pytest.mark.parametrize("zero_output_for_mask", [False, True])
def test_masked_steps_keep_the_state(cell_layer, zero_output_for_mask, window):
    x = window.copy()
    x[-3:] = 0.0  # padding at the end, masked
    x[2] = 0.0  # and one in the middle
    inputs = keras.Input((T, F))
    masked = keras.layers.Masking(0.0)(inputs)
    seq = cell_layer(4, return_sequences=True, zero_output_for_mask=zero_output_for_mask, name="seq")(masked)
    last = cell_layer(3, name="last")(seq)
    model = keras.Model(inputs, keras.layers.Dense(1)(last))
    tr = trace(model, x)
    first, second = tr.layers
    expected_mask = np.array([True, True, False, True, False, False, False])
    np.testing.assert_array_equal(first.mask, expected_mask)
    np.testing.assert_allclose(first.output, submodel_output(model, "seq", x), atol=TOL)
    np.testing.assert_allclose(second.final_state, submodel_output(model, "last", x), atol=TOL)
    np.testing.assert_allclose(tr.outputs, np.asarray(model(x[None]))[0], atol=TOL)
    assert np.isnan(first.arrays[first.gates[0]][2]).all()  # no gates at a skipped step
    np.testing.assert_allclose(first.arrays["h"][2], first.arrays["h"][1])  # the state is kept


def test_keras_own_lstm_traces_its_cell(window):
    inputs = keras.Input((T, F))
    x = keras.layers.LSTM(4, return_sequences=True, name="keras_lstm")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(1)(x[:, -1]))
    layer = trace(model, window).layers[0]
    assert set(layer.arrays) == {"h", "c"}
    np.testing.assert_allclose(layer.arrays["h"], submodel_output(model, "keras_lstm", window), atol=TOL)


def test_sequential_model_and_no_recurrent_layer(window):
    seq = keras.Sequential([keras.Input((T, F)), GRU(3, name="gru"), keras.layers.Dense(1)])
    tr = trace(seq, window)
    np.testing.assert_allclose(tr.outputs, np.asarray(seq(window[None]))[0], atol=TOL)
    assert recurrent_layers(seq) == [seq.get_layer("gru")]
    mlp = keras.Sequential([keras.Input((T, F)), keras.layers.Flatten(), keras.layers.Dense(2)])
    empty = trace(mlp, window)
    assert empty.layers == [] and not recurrent_layers(mlp) and not is_recurrent(mlp.layers[0])
    np.testing.assert_allclose(empty.outputs, np.asarray(mlp(window[None]))[0], atol=TOL)


def test_lstm_variants_show_their_own_equation(window):
    for variant, line in (("no_forget_gate", "no\\_forget\\_gate"), ("gates_only", "gates\\_only")):
        layer = LSTM(3, variant=variant, return_sequences=True)
        traced = trace(layer, window).layers[0]
        np.testing.assert_allclose(traced.arrays["h"], np.asarray(layer(window[None]))[0], atol=TOL)
        assert any(line in block for block in traced.equations)
        assert not any(block.startswith("f_t") for block in traced.equations)
        assert traced.variant == variant


def test_time_labels_and_top_units(window):
    labels = [f"w{t}" for t in range(T)]
    layer = trace(SimpleRNN(6, return_sequences=True), window, time_labels=labels).layers[0]
    assert layer.time_labels == labels
    top = layer.top_units(3)
    mean_abs = np.abs(layer.arrays["h"]).mean(axis=0)
    assert len(top) == 3 and mean_abs[top[0]] == mean_abs.max()
    assert np.all(np.diff(mean_abs[top]) <= 0)


def test_input_errors_are_clear(window):
    model = stacked_model(GRU)
    with pytest.raises(ValueError, match="one sequence"):
        trace(model, np.zeros((2, T, F)))
    with pytest.raises(ValueError, match=r"\(T, F\)"):
        trace(model, np.zeros((T + 1, F)))
    with pytest.raises(ValueError, match="time_labels"):
        trace(model, window, time_labels=["a"])
    with pytest.raises(KeyError, match="rnn_1"):
        trace(model, window).layer("nope")


def test_a_saved_run_stands_for_its_model(trained_run):
    from seqlab.data import load_dataset

    data = load_dataset(trained_run.spec["dataset"], **trained_run.spec["data_options"])
    x = data.splits["test"].x[0]
    tr = trace(trained_run, x)  # the shared run is an MLP: nothing recurrent, same outputs
    assert tr.layers == []
    np.testing.assert_allclose(tr.outputs, trained_run.predictions()["y_pred"][0], rtol=1e-4, atol=1e-4)


def test_probes_are_chosen_by_layer_class_and_declare_their_axes(monkeypatch):
    import keras

    tracing = importlib.import_module("seqlab.inspect.trace")  # the module; the package exports trace()

    inputs = keras.Input((5, 2))
    model = keras.Model(inputs, keras.layers.Dense(1)(keras.layers.GRU(3)(inputs)))
    tr = tracing.trace(model, np.zeros((5, 2), "float32"))
    assert tr.layers[0].axes == {name: ("time", "unit") for name in tr.layers[0].arrays}
    seen = []

    def dense_probe(tracer, layer):
        def call(x, **kwargs):
            seen.append(layer.name)
            return layer(x)

        return call

    monkeypatch.setitem(tracing.PROBES, keras.layers.Dense, dense_probe)
    assert tracing.probe_for(model.layers[-1]) is dense_probe
    tracing.trace(model, np.zeros((5, 2), "float32"))
    assert seen == [model.layers[-1].name]
