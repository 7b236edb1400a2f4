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
