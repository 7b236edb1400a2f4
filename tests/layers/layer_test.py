"""A shared layer check in the spirit of Keras's private `run_layer_test`."""

import keras
import numpy as np


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) and not _is_shape(value) else [value]


def _is_shape(value):
    return isinstance(value, tuple) and all(d is None or isinstance(d, int) for d in value)


def _assert_all_close(actual, expected, atol=1e-6):
    for a, e in zip(_as_list(actual), _as_list(expected), strict=True):
        np.testing.assert_allclose(keras.ops.convert_to_numpy(a), keras.ops.convert_to_numpy(e), atol=atol)


def run_layer_test(
    layer_cls,
    init_kwargs,
    input_shape,
    expected_output_shape,
    tmp_path,
    expected_num_trainable_weights=None,
    expected_num_non_trainable_weights=None,
    input_data=None,
    run_training_check=True,
):
    """Builds and calls a layer eagerly and in a functional model, round-trips its config
    and a `.keras` file, and takes one training step.

    Args:
        layer_cls: The layer class.
        init_kwargs: Constructor arguments.
        input_shape: Shape of the (random, float32) test input, batch included.
        expected_output_shape: A shape tuple, or a list of them for several outputs.
        tmp_path: pytest's `tmp_path`, where the `.keras` file goes.
        expected_num_trainable_weights, expected_num_non_trainable_weights:
            Optional weight-tensor counts after building.
        input_data: Optional input array instead of random data.
        run_training_check: Take one SGD step and check that every trainable
            weight moves and no non-trainable weight does.
    """
    x = np.random.uniform(-1, 1, input_shape).astype("float32") if input_data is None else input_data

    # Eager call and shapes.
    layer = layer_cls(**init_kwargs)
    eager = layer(x)
    shapes = [tuple(o.shape) for o in _as_list(eager)]
    assert shapes == [tuple(s) for s in _as_list(expected_output_shape)], shapes
    if expected_num_trainable_weights is not None:
        assert len(layer.trainable_weights) == expected_num_trainable_weights
    if expected_num_non_trainable_weights is not None:
        assert len(layer.non_trainable_weights) == expected_num_non_trainable_weights

    # get_config round trip: same config, and the class rebuilds from it.
    config = layer.get_config()
    assert layer_cls.from_config(config).get_config() == config
    revived = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(layer))
    assert type(revived) is layer_cls and revived.get_config() == config

    # The same layer inside a functional model gives the eager result.
    inputs = keras.Input(batch_shape=(None, *input_shape[1:]))
    model = keras.Model(inputs, layer(inputs))
    _assert_all_close(model(x), eager)

    # .keras save and load: same outputs.
    path = tmp_path / f"{layer_cls.__name__}.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    _assert_all_close(loaded(x), eager)

    if run_training_check:
        _check_one_training_step(layer, model, x)
    return layer


def _check_one_training_step(layer, model, x):
    first_output = model.outputs[0]
    trainer = keras.Model(model.inputs, first_output)
    trainer.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1), loss="mse")
    before = [keras.ops.convert_to_numpy(w).copy() for w in layer.weights]
    target = np.random.uniform(-1, 1, tuple(first_output.shape[1:])).astype("float32")
    trainer.train_on_batch(x, np.broadcast_to(target, (len(x), *target.shape)))
    for weight, old in zip(layer.weights, before, strict=True):
        moved = not np.allclose(keras.ops.convert_to_numpy(weight), old)
        assert moved == weight.trainable, f"{weight.path}: moved={moved}, trainable={weight.trainable}"


def assert_dropout_only_while_training(layer):
    """Dropout changes the output with `training=True` only: inference is deterministic."""
    x = np.ones((2, 4, 3), dtype="float32")
    inference = keras.ops.convert_to_numpy(layer(x))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer(x, training=False)), inference)
    assert not np.allclose(keras.ops.convert_to_numpy(layer(x, training=True)), inference)


def assert_same_as_keras(ours, theirs, x, mask=None, direction="seqlab_to_keras", atol=1e-5):
    """Random weights copied between a seqlab layer and its Keras twin give the same outputs.

    `direction` says which layer draws the random weights: "seqlab_to_keras"
    (seqlab's weights set into Keras's layer) or "keras_to_seqlab".
    """
    for layer in (ours, theirs):
        layer.build(x.shape)
    source, target = (ours, theirs) if direction == "seqlab_to_keras" else (theirs, ours)
    rng = np.random.default_rng(0)
    source.set_weights([rng.normal(0.0, 0.5, w.shape).astype("float32") for w in source.get_weights()])
    target.set_weights(source.get_weights())
    _assert_all_close(ours(x, mask=mask), theirs(x, mask=mask), atol=atol)
