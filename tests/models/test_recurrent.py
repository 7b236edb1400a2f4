import keras
import numpy as np
import pytest

from seqlab.layers import GRU, LSTM, SimpleRNN
from seqlab.models import build_model, get_architecture, list_architectures

OUTPUT = {  # task -> output shape after the batch axis, from the data
    "forecast": lambda d: (d.horizon,),
    "regress": lambda d: (1,),
    "classify": lambda d: (len(d.classes),),
    "label": lambda d: (d.lookback, len(d.classes)),
}


def test_the_recurrent_family_fits_every_sequence_task():
    for task in ("forecast", "regress", "classify", "label"):
        assert {"simple_rnn", "lstm", "gru"} <= {a.name for a in list_architectures(task)}
    assert get_architecture("lstm").as_dict()["choices"]["variant"] == ["gates_only", "feedback", "no_forget_gate", "full"]


@pytest.mark.parametrize("task", ["forecast", "regress", "classify", "label"])
@pytest.mark.parametrize("name", ["simple_rnn", "lstm", "gru"])
def test_builds_trains_one_step_and_reloads(tiny, tmp_path, name, task):
    data = tiny[task]
    model = build_model(name, data, {"units": 3, "layers": 2})
    train = data.splits["train"]
    x, y = train.x[:8], train.y[:8]
    assert model(x).shape == (8, *OUTPUT[task](data))
    loss = "sparse_categorical_crossentropy" if data.classes else "mse"
    model.compile("sgd", loss)
    before = [w.copy() for w in model.get_weights()]
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert any(not np.array_equal(a, b) for a, b in zip(before, model.get_weights()))
    model.save(tmp_path / "m.keras")
    again = keras.saving.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(model.predict(x, verbose=0), again.predict(x, verbose=0), atol=1e-6)


def test_the_layers_are_seqlabs_with_their_options(tiny):
    data = tiny["forecast"]
    irnn = build_model("simple_rnn", data, {"units": 4, "activation": "relu", "identity_init": True})
    cell = irnn.get_layer("simple_rnn_1").cell
    assert isinstance(irnn.get_layer("simple_rnn_1"), SimpleRNN) and cell.activation is keras.activations.relu
    np.testing.assert_array_equal(cell.recurrent_kernel.numpy(), np.eye(4))
    lstm = build_model("lstm", data, {"units": 4, "variant": "no_forget_gate"}).get_layer("lstm_1")
    assert isinstance(lstm, LSTM) and lstm.variant == "no_forget_gate"
    gru = build_model("gru", data, {"units": 4, "reset_after": False}).get_layer("gru_1")
    assert isinstance(gru, GRU) and not gru.reset_after


@pytest.mark.parametrize("merge_mode, width", [("concat", 8), ("sum", 4)])
def test_bidirectional_forms_forward_and_backward_states(tiny, merge_mode, width):
    model = build_model("gru", tiny["label"], {"units": 4, "bidirectional": True, "merge_mode": merge_mode})
    both = model.get_layer("bidirectional_1")
    assert isinstance(both, keras.layers.Bidirectional) and both.backward_layer.go_backwards
    assert both.output.shape[-1] == width and both.output.shape[1] == tiny["label"].lookback


@pytest.mark.parametrize(
    "name, options, message",
    [
        ("simple_rnn", {"units": 0}, r"units must lie in \[1, 1024\]"),
        ("simple_rnn", {"activation": "gelu"}, "activation must be one of tanh, relu, sigmoid"),
        ("simple_rnn", {"identity_init": "yes"}, "identity_init must be true or false"),
        ("lstm", {"variant": "peephole"}, "variant must be one of"),
        ("gru", {"bidirectional": 1}, "bidirectional must be true or false"),
        ("gru", {"merge_mode": "max"}, "merge_mode must be one of concat"),
        ("gru", {"reset_after": None}, "reset_after"),
        ("lstm", {"dropout": 1.5}, "dropout"),
    ],
)
def test_bad_options_name_the_option(tiny, name, options, message):
    with pytest.raises(ValueError, match=message):
        build_model(name, tiny["forecast"], options)


@pytest.mark.parametrize("shape", [(2, 10), (2, 10, 2)])
def test_wrong_input_rank_or_feature_count(tiny, shape):
    model = build_model("lstm", tiny["forecast"], {"units": 2})
    with pytest.raises(ValueError, match=r"inputs must have shape \(batch, T, F\) = \(batch, 10, 1\)"):
        model(np.zeros(shape, "float32"))
