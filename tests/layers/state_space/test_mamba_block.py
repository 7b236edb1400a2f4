import keras
import numpy as np
import pytest

from seqlab.layers.state_space import MambaBlock
from tests.layers.layer_test import run_layer_test
from tests.layers.state_space.reference import selective_loop

BATCH, STEPS, CHANNELS = 2, 12, 3
EXPAND, N, WIDTH = 2, 4, 3


def _inputs(seed=0):
    return np.random.default_rng(seed).normal(size=(BATCH, STEPS, CHANNELS)).astype("float32")


def _block(u):
    block = MambaBlock(EXPAND, N, conv_width=WIDTH)
    block.build(u.shape)
    rng = np.random.default_rng(3)
    for weight in block.weights:
        weight.assign((weight.numpy() + rng.normal(0.0, 0.3, weight.shape)).astype("float32"))
    return block


def _silu(z):
    return z / (1.0 + np.exp(-z))


def _reference(block, u):
    """The block's equations in NumPy, the selective scan by tests/layers/state_space/reference.py."""
    scale = block.norm.weights[0].numpy()
    normed = u / np.sqrt((u**2).mean(-1, keepdims=True) + block.norm.epsilon) * scale
    v, z = np.split(normed @ block.in_projection.kernel.numpy(), 2, axis=-1)
    k, b = block.conv_kernel.numpy(), block.conv_bias.numpy()
    padded = np.concatenate([np.zeros((BATCH, WIDTH - 1, v.shape[-1])), v], axis=1)
    c = _silu(np.stack([sum(k[j] * padded[:, WIDTH - 1 + t - j] for j in range(WIDTH)) for t in range(STEPS)], 1) + b)
    s, x = selective_loop(block.ssm, c)
    return u + (s * _silu(z)) @ block.out_projection.kernel.numpy(), x


def test_layer_basics(tmp_path):
    run_layer_test(
        MambaBlock, {"expand": 2, "state_size": 3}, input_shape=(2, 5, 4), expected_output_shape=(2, 5, 4),
        tmp_path=tmp_path,
        expected_num_trainable_weights=11,  # norm, W_in, k, b_k, the selective layer's 6, W_out
    )


def test_the_block_is_its_equations():
    u = _inputs()
    block = _block(u)
    expected_y, expected_x = _reference(block, u.astype(np.float64))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(block(u)), expected_y, atol=1e-5)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(block.states(u)[0]), expected_x, atol=1e-5)


def test_stepping_gives_the_sequence():
    u = _inputs()
    block = _block(u)
    state, outputs = block.initial_state(BATCH), []
    for t in range(STEPS):
        y_t, state = block.step(u[:, t], state)
        outputs.append(keras.ops.convert_to_numpy(y_t))
    np.testing.assert_allclose(np.stack(outputs, 1), keras.ops.convert_to_numpy(block(u)), atol=1e-5)
    inner = EXPAND * CHANNELS
    assert [tuple(part.shape) for part in state] == [(BATCH, WIDTH - 1, inner), (BATCH, inner, N)]


def test_causal():
    u = _inputs()
    block = _block(u)
    before = keras.ops.convert_to_numpy(block(u))
    for t in (0, 5, STEPS - 2):
        changed = u.copy()
        changed[:, t + 1 :] += 5.0
        after = keras.ops.convert_to_numpy(block(changed))
        np.testing.assert_array_equal(after[:, : t + 1], before[:, : t + 1])
        assert not np.allclose(after[:, t + 1], before[:, t + 1])


@pytest.mark.parametrize(
    "options, message",
    [({"expand": 0}, "expand=0"), ({"conv_width": 1.5}, r"conv_width=1\.5"), ({"dt_rank": -2}, "dt_rank=-2")],
)
def test_bad_arguments_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        MambaBlock(**options)
