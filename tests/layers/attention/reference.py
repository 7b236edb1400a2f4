"""NumPy references written from the notes' formulas, and the checks every attention layer passes."""

import keras
import numpy as np

RNG = np.random.default_rng(0)
B, S, T = 2, 6, 3
# Row 1 has 4 real source positions, then 2 padded ones.
MASK = np.array([[True] * S, [True] * 4 + [False] * (S - 4)])


def rand(*shape):
    return RNG.normal(size=shape).astype("float32")


def np_(tensor):
    return keras.ops.convert_to_numpy(tensor)


def softmax_over(scores, mask):
    """exp(score) / sum over the True positions of `mask`; 0 elsewhere (every row has a True)."""
    exps = np.where(mask, np.exp(scores - scores.max(-1, keepdims=True)), 0.0)
    return exps / exps.sum(-1, keepdims=True)


def weights_of(layer):
    return {w.name: np_(w) for w in layer.weights}


def score_reference(layer, z, z_bar):
    """score(z_t, z_bar_s) as the notes write it: dot, general or concat, (B, T, S)."""
    w = weights_of(layer)
    if layer.score_name == "dot":
        return np.einsum("btd,bsd->bts", z, z_bar)  # z_t^T z_bar_s
    if layer.score_name == "general":
        return np.einsum("btd,de,bse->bts", z, w["W_a"], z_bar)  # z_t^T W_a z_bar_s
    W_a = w["W_a"].T  # the notes' (units, d_q + d_v); stored transposed
    b, t, s = z.shape[0], z.shape[1], z_bar.shape[1]
    both = np.concatenate(  # [z_t ; z_bar_s] for every (t, s): (B, T, S, d_q + d_v)
        [np.broadcast_to(z[:, :, None, :], (b, t, s, z.shape[-1])),
         np.broadcast_to(z_bar[:, None, :, :], (b, t, s, z_bar.shape[-1]))],
        axis=-1,
    )
    return np.tanh(both @ W_a.T) @ w["v_a"]  # v_a^T tanh(W_a [z_t ; z_bar_s])


def assert_saves_and_jits(layer, inputs, tmp_path, call_kwargs=None):
    """`layer` in a functional model over (query, values, mask) learns (one SGD step moves every
    weight), and gives its eager outputs after a .keras save and reload, through a jit-compiled
    `model.predict`."""
    query, values, mask = inputs
    call_kwargs = call_kwargs or {}
    symbolic = [
        keras.Input(shape=query.shape[1:], name="query"),
        keras.Input(shape=values.shape[1:], name="values"),
        keras.Input(shape=mask.shape[1:], dtype="bool", name="mask"),
    ]
    model = keras.Model(symbolic, list(layer(symbolic[0], symbolic[1], mask=symbolic[2], **call_kwargs)))
    if layer.weights:  # the dot score has none
        _assert_one_step_moves_every_weight(layer, model, (query, values, mask))
    eager = [np_(o) for o in layer(query, values, mask=mask, **call_kwargs)]  # after the step
    path = tmp_path / "attention.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    loaded.compile(jit_compile=True)
    assert loaded.jit_compile is True
    for got, want in zip(loaded.predict([query, values, mask], verbose=0), eager, strict=True):
        np.testing.assert_allclose(got, want, atol=1e-5)
    revived = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(layer))
    assert type(revived) is type(layer) and revived.get_config() == layer.get_config()


def _assert_one_step_moves_every_weight(layer, model, inputs):
    trainer = keras.Model(model.inputs, model.outputs[0])  # the context
    trainer.compile(optimizer=keras.optimizers.SGD(learning_rate=0.5), loss="mse")
    before = [np_(w).copy() for w in layer.weights]
    target = RNG.normal(size=tuple(np_(layer(*inputs[:2], mask=inputs[2])[0]).shape)).astype("float32")
    trainer.train_on_batch(list(inputs), target)
    for weight, old in zip(layer.weights, before, strict=True):
        assert not np.allclose(np_(weight), old), f"{weight.name} did not move"
