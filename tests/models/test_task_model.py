import keras
import numpy as np
import pytest
import tensorflow as tf

from seqlab.models import TaskModel, build_model
from seqlab.training.events import EventCallback


def test_grad_norm_in_batch_events_is_the_tape_gradient_norm_before_clipping(tiny):
    data = tiny["regress"]
    model = build_model("simple_rnn", data, {"units": 4})
    assert isinstance(model, TaskModel)
    x, y = data.splits["train"].x[:16], data.splits["train"].y[:16]
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(keras.losses.mean_squared_error(y, model(x, training=True)))
    reference = float(tf.linalg.global_norm(tape.gradient(loss, model.trainable_weights)))

    clip = reference / 10  # the optimizer clips; the reported norm is the one before
    model.compile(keras.optimizers.SGD(0.1, global_clipnorm=clip), "mse")
    events = []
    model.fit(x, y, batch_size=16, epochs=2, shuffle=False, callbacks=[EventCallback(events.append)], verbose=0)
    batches = [e for e in events if e["type"] == "batch"]
    assert events[0]["type"] == "start" and events[0]["steps_per_epoch"] == 1 and events[0]["epochs"] == 2
    assert batches[0]["grad_norm"] == pytest.approx(reference, rel=1e-5)
    assert batches[1]["grad_norm"] != pytest.approx(reference, rel=1e-3)  # weights moved: a new gradient
    assert all("grad_norm" not in e for e in events if e["type"] == "epoch")


def test_the_model_reloads_as_a_task_model(tiny, tmp_path):
    model = build_model("gru", tiny["classify"], {"units": 2})
    model.save(tmp_path / "m.keras")
    again = keras.saving.load_model(tmp_path / "m.keras")
    assert isinstance(again, TaskModel)
    x = tiny["classify"].splits["test"].x[:3]
    np.testing.assert_allclose(again.predict(x, verbose=0), model.predict(x, verbose=0), atol=1e-6)


@pytest.mark.parametrize("sequences", [False, True], ids=["last_step", "every_step_masked"])
def test_fit_logs_the_loss_and_metrics_of_keras_own_step(sequences):
    # TaskModel's step adds grad_norm and learning_rate; its loss and metrics are those of keras.Model's step,
    # sample weights and (per-step outputs) the padding mask included.
    rng = np.random.default_rng(0)
    if sequences:
        tokens = keras.Input((5,), dtype="int32")
        h = keras.layers.Embedding(6, 3, mask_zero=True)(tokens)
        outputs = keras.layers.Dense(4, activation="softmax")(h)  # (B, T, 4), the padding mask carried on
        x = rng.integers(0, 6, (12, 5)).astype("int32")
        y, weights = rng.integers(0, 4, (12, 5)), rng.uniform(0.5, 2.0, (12, 5))
        loss, metric = "sparse_categorical_crossentropy", "sparse_categorical_accuracy"
    else:
        tokens = keras.Input((3,))
        outputs = keras.layers.Dense(2)(tokens)
        x, y, weights = rng.normal(size=(12, 3)), rng.normal(size=(12, 2)), rng.uniform(0.5, 2.0, 12)
        loss, metric = "mse", "mae"
    ours = TaskModel(tokens, outputs)
    theirs = keras.Model(tokens, outputs)
    start, histories = ours.get_weights(), []  # the two models share their layers: each starts from these
    for model in (ours, theirs):
        model.set_weights(start)
        model.compile(keras.optimizers.SGD(0.1), loss, metrics=[metric], weighted_metrics=[metric])
        fit = model.fit(x, y, sample_weight=weights, batch_size=5, shuffle=False, verbose=0)
        histories.append(fit.history)
    assert set(histories[0]) == set(histories[1]) | {"grad_norm", "learning_rate"}
    for name, values in histories[1].items():
        np.testing.assert_allclose(histories[0][name], values, rtol=1e-6, err_msg=name)
