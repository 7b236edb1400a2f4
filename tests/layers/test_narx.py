import keras
import numpy as np
import pytest

import tests.layers.test_docs as docs_test
from seqlab.layers.narx import NARX
from tests.layers.layer_test import run_layer_test

LAG, UNITS = 4, 5


def test_narx_layer_basics(tmp_path):
    run_layer_test(
        NARX, {"lag": 3, "units": 4}, input_shape=(2, 6, 3), expected_output_shape=(2, 4, 1), tmp_path=tmp_path,
        expected_num_trainable_weights=4,
    )


def test_deep_residual_multi_output_narx_basics(tmp_path):
    run_layer_test(
        NARX,
        {"lag": 3, "units": 4, "layers": 3, "activation": "relu", "target": 1, "outputs": 2, "residual": True,
         "return_sequences": False},
        input_shape=(2, 6, 3), expected_output_shape=(2, 2), tmp_path=tmp_path,
        expected_num_trainable_weights=8,  # V, b, (W, b) twice, w, c
    )


def test_narx_documents_its_equations():
    docs_test.test_every_public_layer_has_its_equations(NARX)


def _random_narx(x, **options):
    layer = NARX(LAG, UNITS, **options)
    layer.build(x.shape)
    rng = np.random.default_rng(1)
    layer.set_weights([rng.normal(0, 0.5, w.shape).astype("float32") for w in layer.get_weights()])
    return layer


def _tapped_delay_vectors(x, lag, target):
    """u_t = (y_{t-1}, ..., y_{t-T}, x_{t-1}, ..., x_{t-T}) for every t with T rows before it: (B, S - T + 1, T * F)."""
    exogenous = [f for f in range(x.shape[-1]) if f != target]
    vectors = []
    for t in range(lag, x.shape[1] + 1):
        newest_first = x[:, t - lag : t][:, ::-1]  # rows t-1, ..., t-T
        vectors.append(np.concatenate([newest_first[:, :, f] for f in [target, *exogenous]], axis=1))
    return np.stack(vectors, axis=1)


def test_the_convolution_is_one_mlp_on_the_tapped_delay_vector_at_every_step():
    x = np.random.default_rng(0).normal(size=(2, 9, 3)).astype("float32")
    layer = _random_narx(x, layers=2, target=1, outputs=2)
    V, b, W2, b2, w, c = layer.get_weights()
    V = keras.ops.convert_to_numpy(layer.V)  # (units, T * F), columns in the order of u_t

    u = _tapped_delay_vectors(x, LAG, target=1)  # (2, 6, 12)
    z = np.tanh(u @ V.T + b)
    z = np.tanh(z @ W2 + b2)
    expected = z @ w + c  # (2, 6, 2)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer(x)), expected, atol=1e-5)

    # V's columns are the convolution kernel's taps: y_{t-1} is the newest row, y_{t-T} the oldest.
    kernel = keras.ops.convert_to_numpy(layer.kernel)
    np.testing.assert_array_equal(V[:, 0], kernel[LAG - 1, 1])
    np.testing.assert_array_equal(V[:, LAG - 1], kernel[0, 1])
    np.testing.assert_array_equal(V[:, LAG], kernel[LAG - 1, 0])  # x_{t-1} of the first exogenous column
    np.testing.assert_array_equal(V[:, 2 * LAG], kernel[LAG - 1, 2])


def test_without_return_sequences_it_is_the_last_step():
    x = np.random.default_rng(0).normal(size=(2, 9, 2)).astype("float32")
    every_step = _random_narx(x)
    last = NARX(LAG, UNITS, return_sequences=False)
    last.build(x.shape)
    last.set_weights(every_step.get_weights())
    np.testing.assert_allclose(last(x), every_step(x)[:, -1], atol=1e-6)
    assert last.compute_output_shape((None, 9, 2)) == (None, 1)
    assert every_step.compute_output_shape((None, 9, 2)) == (None, 6, 1)


def test_the_residual_form_adds_the_last_target_value():
    x = np.random.default_rng(0).normal(size=(2, 9, 3)).astype("float32")
    plain = _random_narx(x, target=2, outputs=3)
    residual = NARX(LAG, UNITS, target=2, outputs=3, residual=True)
    residual.build(x.shape)
    residual.set_weights(plain.get_weights())
    y_prev = x[:, LAG - 1 :, 2]  # y_{t-1} for t = T..S: the newest target value of each delay line
    difference = keras.ops.convert_to_numpy(residual(x) - plain(x))
    np.testing.assert_allclose(difference, np.repeat(y_prev[..., None], 3, axis=-1), atol=1e-6)


def test_a_lag_as_long_as_the_window_gives_one_prediction():
    x = np.ones((1, LAG, 1), "float32")
    assert NARX(LAG, UNITS)(x).shape == (1, 1, 1)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"lag": 0}, r"`lag` must be a positive integer. Received: lag=0"),
        ({"lag": 2.5}, "`lag` must be a positive integer"),
        ({"lag": True}, "`lag` must be a positive integer"),
        ({"units": 0}, "`units` must be a positive integer"),
        ({"layers": 0}, "`layers` must be a positive integer"),
        ({"outputs": -1}, "`outputs` must be a positive integer"),
        ({"target": -1}, r"`target` must be a column index >= 0. Received: target=-1"),
        ({"target": "y"}, "`target` must be a column index"),
        ({"activation": "wobbly"}, "`activation` is not a known activation"),
    ],
)
def test_bad_arguments_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        NARX(**{"lag": 2, "units": 3, **options})


def test_a_lag_longer_than_the_window_is_refused():
    with pytest.raises(ValueError, match=r"lag T=4 is longer than its window of 3 steps"):
        NARX(4, 3)(np.zeros((1, 3, 2), "float32"))


def test_a_target_outside_the_features_is_refused():
    with pytest.raises(ValueError, match=r"target column 2 is out of range for inputs with 2 feature\(s\)"):
        NARX(2, 3, target=2)(np.zeros((1, 5, 2), "float32"))
