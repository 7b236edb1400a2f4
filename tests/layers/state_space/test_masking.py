"""Padding in the state-space layers: the real steps give what the unpadded sequence gives, padded on either side."""

import numpy as np
import pytest

from seqlab.layers import DiagonalStateSpace, MambaBlock, SelectiveStateSpace

RNG = np.random.default_rng(0)
U = RNG.normal(size=(1, 5, 3)).astype("float32")  # the real steps
PAD = 3

LAYERS = {
    "s4d_convolution": lambda **kw: DiagonalStateSpace(state_size=4, **kw),
    "s4d_recurrence": lambda **kw: DiagonalStateSpace(state_size=4, mode="recurrence", **kw),
    "s4d_real": lambda **kw: DiagonalStateSpace(state_size=4, init="real", **kw),
    "s6": lambda **kw: SelectiveStateSpace(state_size=4, **kw),
}


def padded(side):
    # Padding that is not zero: only the mask may make it harmless.
    junk = np.full((1, PAD, 3), 7.0, dtype="float32")
    u = np.concatenate([U, junk] if side == "right" else [junk, U], axis=1)
    real = np.arange(u.shape[1]) < U.shape[1] if side == "right" else np.arange(u.shape[1]) >= PAD
    return u, real[None]


def real_part(y, side):
    return y[:, : U.shape[1]] if side == "right" else y[:, PAD:]


@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("kind", list(LAYERS))
def test_the_real_steps_give_the_unpadded_outputs_states_and_last_step(kind, side):
    layer = LAYERS[kind]()
    expected = np.asarray(layer(U))
    u, mask = padded(side)
    np.testing.assert_allclose(real_part(np.asarray(layer(u, mask=mask)), side), expected, atol=1e-5)
    for got, want in zip(layer.states(u, mask=mask), layer.states(U)):
        np.testing.assert_allclose(real_part(np.asarray(got), side), np.asarray(want), atol=1e-5)
    last = LAYERS[kind](return_sequences=False, return_state=True)
    last.build(U.shape)
    last.set_weights(layer.get_weights())
    y, *state = last(u, mask=mask)
    y_plain, *state_plain = last(U)
    np.testing.assert_allclose(np.asarray(y), expected[:, -1], atol=1e-5)  # the last real step, not the padding's
    for got, want in zip(state, state_plain):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-5)


@pytest.mark.parametrize("side", ["right", "left"])
def test_the_mamba_block_reads_padding_as_the_zeros_before_the_start(side):
    block = MambaBlock(expand=2, state_size=4, conv_width=3)
    expected = np.asarray(block(U))
    u, mask = padded(side)
    np.testing.assert_allclose(real_part(np.asarray(block(u, mask=mask)), side), expected, atol=1e-5)
    np.testing.assert_allclose(
        real_part(np.asarray(block.states(u, mask=mask)[0]), side), np.asarray(block.states(U)[0]), atol=1e-5
    )


def test_an_embeddings_mask_reaches_the_layer_and_passes_on():
    import keras

    ids = keras.Input((6,), dtype="int32")
    x = keras.layers.Embedding(10, 3, mask_zero=True)(ids)
    y = DiagonalStateSpace(state_size=4)(x)
    assert y._keras_mask is not None  # passed on to a labelling head's loss
    last = keras.Model(ids, DiagonalStateSpace(state_size=4, return_sequences=False)(x))
    tokens = np.array([[3, 4, 5, 0, 0, 0]])
    np.testing.assert_allclose(last.predict(tokens, verbose=0), last.predict(tokens[:, :3], verbose=0), atol=1e-5)


@pytest.mark.parametrize("kind", ["s4d_convolution", "s6"])
def test_reading_several_steps_after_a_state_is_stepping_them(kind):
    layer = LAYERS[kind]()
    layer(U)
    head, state = layer.read(U[:, :2], layer.initial_state(1))
    tail, state = layer.read(U[:, 2:], state)
    np.testing.assert_allclose(np.concatenate([head, tail], axis=1), np.asarray(layer(U)), atol=1e-5)
    stepped = layer.initial_state(1)
    for t in range(U.shape[1]):
        _, stepped = layer.step(U[:, t], stepped)
    for got, want in zip(state, stepped):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-5)


def test_the_mamba_block_reads_a_prompt_then_steps_on():
    block = MambaBlock(expand=2, state_size=4, conv_width=3)
    expected = np.asarray(block(U))
    head, state = block.read(U[:, :3], block.initial_state(1))
    y_3, state = block.step(U[:, 3], state)
    tail, _ = block.read(U[:, 4:], state)
    np.testing.assert_allclose(np.concatenate([head, np.asarray(y_3)[:, None], tail], axis=1), expected, atol=1e-5)
