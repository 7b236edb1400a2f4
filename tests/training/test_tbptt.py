import numpy as np
import pytest
import tensorflow as tf

from seqlab.data import load_dataset
from seqlab.data.windowing import split_points
from seqlab.models import build_model
from seqlab.training import ExperimentSpec, run_experiment
from seqlab.training.tbptt import TruncatedBPTT, tbptt_steps, training_streams


@pytest.fixture(scope="module")
def sine():
    return load_dataset("sine", length=300, lookback=10, horizon=3)


def trainer(data, k1, k2, model="lstm"):
    built = build_model(model, data, {"units": 3, "layers": 2})
    built.compile("sgd", "mse")
    return TruncatedBPTT(built, tbptt_steps(built), k1, k2)


def test_no_gradient_reaches_further_back_than_k2_steps_across_updates(sine):
    t = trainer(sine, k1=3, k2=5)  # L = 5 steps per update, the next update starts 3 steps later
    x = tf.Variable(np.random.default_rng(0).normal(size=(2, 8, 1)).astype("float32"))
    y = tf.zeros((2, 8, 3))
    with tf.GradientTape(persistent=True) as tape:
        _, carry = t.loss(x[:, 0:5], y[:, 0:5], t.initial_states(2))
        loss, _ = t.loss(x[:, 3:8], y[:, 3:8], carry)  # the second update: steps 3..7
    g = np.abs(tape.gradient(loss, x).numpy()).sum(axis=(0, 2))
    assert (g[:3] == 0).all() and (g[3:] > 0).all()  # steps 0..2 lie more than k2 = 5 steps back


def test_with_k1_above_k2_the_cut_lies_inside_the_update(sine):
    t = trainer(sine, k1=6, k2=2)
    x = tf.Variable(np.ones((1, 6, 1), "float32"))
    with tf.GradientTape() as tape:
        loss, _ = t.loss(x, tf.zeros((1, 6, 3)), t.initial_states(1))
    g = np.abs(tape.gradient(loss, x).numpy()).sum(axis=(0, 2))
    assert (g[:4] == 0).all() and (g[4:] > 0).all()


def test_truncation_cuts_gradients_not_values(sine):
    t = trainer(sine, k1=3, k2=5, model="gru")
    x = np.random.default_rng(1).normal(size=(2, 8, 1)).astype("float32")
    y = np.zeros((2, 8, 3), "float32")
    _, carry = t.loss(x[:, 0:5], y[:, 0:5], t.initial_states(2), training=False)
    outputs, _ = t.run(x[:, 3:8], carry)
    whole, _ = t.run(x, t.initial_states(2))  # one untruncated pass
    np.testing.assert_allclose(outputs, whole[:, 3:8], atol=1e-5)
    # The last step of a stateful pass over a window is the windowed model's forecast.
    window = np.random.default_rng(2).normal(size=(2, 10, 1)).astype("float32")
    np.testing.assert_allclose(t.run(window, t.initial_states(2))[0][:, -1], t.model(window), atol=1e-5)


def test_streams_are_the_training_rows_with_next_h_targets(sine):
    x, y = training_streams(sine, streams=4, length=5)
    val_start, _ = split_points(300, 0.15, 0.15)
    series = sine.target_series
    per_stream = (val_start - 3) // 4
    assert x.shape == (4, per_stream, 1) and y.shape == (4, per_stream, 3)
    np.testing.assert_allclose(x[1, 2, 0], series[per_stream + 2], rtol=1e-6)
    np.testing.assert_allclose(y[1, 2], series[per_stream + 3 : per_stream + 6], rtol=1e-6)
    with pytest.raises(ValueError, match="lower batch_size"):
        training_streams(sine, streams=100, length=5)


@pytest.mark.parametrize("options", [{"bidirectional": True}, {}])
def test_only_unidirectional_recurrent_stacks(sine, options):
    model = build_model("gru" if options else "mlp", sine, {"units": 2, **options})
    with pytest.raises(ValueError, match="unidirectional recurrent layers"):
        tbptt_steps(model)


def test_a_tbptt_run_streams_updates_with_grad_norm(runs_dir):
    events = []
    spec = ExperimentSpec("sine", "simple_rnn", data_options={"length": 300, "lookback": 10, "horizon": 3},
                          model_options={"units": 4}, tbptt=[5, 10], batch_size=4, epochs=2)
    run = run_experiment(spec, on_event=events.append, savedmodel=False)
    start = next(e for e in events if e["type"] == "start")  # after the loading and building phases
    per_stream = (split_points(300, 0.15, 0.15)[0] - 3) // 4
    assert start["steps_per_epoch"] == (per_stream - 10) // 5 + 1
    batches = [e for e in events if e["type"] == "batch"]
    assert len(batches) == 2 * start["steps_per_epoch"] and all(b["grad_norm"] > 0 for b in batches)
    epochs = [e for e in events if e["type"] == "epoch"]
    assert len(epochs) == 2 and "val_loss" in epochs[0]
    assert run.spec["tbptt"] == [5, 10] and run.status == "completed"
