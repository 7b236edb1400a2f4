"""gradient_through_time(): ||dL/dh_t|| against cases whose answer is known."""

import keras
import numpy as np
import pytest
from keras import ops

from seqlab.inspect import gradient_through_time
from seqlab.inspect.trace import as_batch, run_traced
from seqlab.layers import LSTM, SimpleRNN

T, F, UNITS = 12, 2, 3


def linear_elman(a, **options):
    """z_t = B z_{t-1} + V x_t with B = a I: the Jacobian dz_{t+1}/dz_t is a I."""
    layer = SimpleRNN(UNITS, activation="linear", use_bias=False, **options)
    layer.build((None, T, F))
    V = np.random.default_rng(1).normal(size=(F, UNITS))
    layer.set_weights([V, a * np.eye(UNITS)])
    return layer


@pytest.mark.parametrize("a", [0.5, 0.9, 1.3])
def test_linear_elman_gradient_scales_as_a_power(a):
    x = np.random.default_rng(0).normal(size=(T, F))
    y = np.ones(UNITS)
    layer = linear_elman(a)
    g = gradient_through_time(layer, x, y, loss="mse")
    norms = g.layers[0].norms
    t = np.arange(T)
    # dL/dz_t = (B^T)^(T-t) dL/dz_T = a^(T-t) dL/dz_T (t counted from 1; here from 0: T-1-t).
    np.testing.assert_allclose(norms, a ** (T - 1 - t) * norms[-1], rtol=1e-4)
    # And dL/dz_T itself is the MSE's own derivative 2 (z_T - y) / n.
    z_T = np.asarray(layer(x[None].astype("float32")))[0]
    np.testing.assert_allclose(g.layers[0].gradients[-1], 2 * (z_T - y) / UNITS, rtol=1e-4, atol=1e-7)
    assert g.loss == pytest.approx(np.mean((z_T - y) ** 2), rel=1e-5)


def test_backward_direction_scales_the_other_way():
    a = 0.6
    wrapper = keras.layers.Bidirectional(linear_elman(a), merge_mode="sum")
    wrapper.build((None, T, F))  # builds its own copies of the layer: set both
    wrapper.forward_layer.set_weights(linear_elman(a).get_weights())
    wrapper.backward_layer.set_weights(linear_elman(a).get_weights())
    x = np.random.default_rng(2).normal(size=(T, F))
    g = gradient_through_time(wrapper, x, np.zeros(UNITS), loss="mse")
    fwd, bwd = g.layer(wrapper.name), g.layer(f"{wrapper.name}/backward")
    t = np.arange(T)
    np.testing.assert_allclose(fwd.norms, a ** (T - 1 - t) * fwd.norms[-1], rtol=1e-4)
    np.testing.assert_allclose(bwd.norms, a**t * bwd.norms[0], rtol=1e-4)  # read from the end: t = 1 is last
    assert bwd.label.endswith("(backward)")


def test_lstm_keeps_gradient_where_a_saturated_elman_loses_it():
    steps = 40
    x = np.random.default_rng(3).normal(size=(steps, F)).astype("float32")
    elman = SimpleRNN(8, activation="tanh")
    elman.build((None, steps, F))
    kernel, recurrent, bias = elman.get_weights()
    elman.set_weights([kernel, recurrent, bias + 4.0])  # a large bias: tanh saturates, tanh' ~ 1e-3
    lstm = LSTM(8)  # Keras's initialisation: forget bias 1
    y = np.zeros(8)

    def reach(layer, back):
        norms = gradient_through_time(layer, x, y, loss="mse").layers[0].norms
        return norms[-1 - back] / norms[-1]  # how much of the last step's gradient arrives `back` steps earlier

    # Five steps back the saturated Elman RNN has lost almost all of it (tanh' ~ 1e-3 per step), the LSTM not;
    # at the first step the Elman gradient has underflowed to 0 while the LSTM's is still there.
    assert reach(elman, 5) < 1e-6 < 1e-2 < reach(lstm, 5)
    assert reach(elman, steps - 1) < 1e-20 < 1e-7 < reach(lstm, steps - 1)


def test_matches_finite_differences_in_a_stacked_model():
    inputs = keras.Input((T, F))
    x = keras.layers.Normalization(axis=-1, mean=[1.0, -1.0], variance=[4.0, 0.25])(inputs)
    x = LSTM(4, return_sequences=True, name="low")(x)
    x = SimpleRNN(3, name="high")(x)
    model = keras.Model(inputs, keras.layers.Dense(2)(x))
    window = np.random.default_rng(4).normal(size=(T, F)).astype("float32")
    y = np.array([0.3, -0.7])
    g = gradient_through_time(model, window, y, loss="mse")
    assert [layer.key for layer in g.layers] == ["low", "high"]
    batch = as_batch(window)

    def loss_with(key, t, delta):
        def perturb(k, s, h):
            return h + delta if (k, s) == (key, t) else h

        out, _ = run_traced(model, batch, list(range(T)), perturb=perturb)
        return float(np.mean((np.asarray(out, dtype="float64")[0] - y) ** 2))

    rng = np.random.default_rng(5)
    for layer in g.layers:
        for t in (0, T // 2, T - 1):
            direction = rng.normal(size=layer.gradients.shape[1]).astype("float32")
            eps = 1e-2
            numeric = (loss_with(layer.key, t, eps * direction) - loss_with(layer.key, t, -eps * direction)) / (2 * eps)
            analytic = float(layer.gradients[t] @ direction)
            assert numeric == pytest.approx(analytic, rel=2e-2, abs=1e-5)


def test_classification_loss_and_compiled_default():
    inputs = keras.Input((T, F))
    model = keras.Model(inputs, keras.layers.Dense(3, activation="softmax")(LSTM(4)(inputs)))
    model.compile(loss="sparse_categorical_crossentropy")
    x = np.random.default_rng(6).normal(size=(T, F))
    g = gradient_through_time(model, x, 2)  # a class id; the compiled loss by default
    p = np.asarray(model(x[None].astype("float32")))[0]
    assert g.loss_name == "sparse_categorical_crossentropy"
    assert g.loss == pytest.approx(-np.log(p[2]), rel=1e-4)
    assert np.all(np.isfinite(g.layers[0].norms)) and g.layers[0].norms[-1] > 0


def test_a_model_without_recurrent_layers_has_no_gradient_lines():
    model = keras.Sequential([keras.Input((T, F)), keras.layers.Flatten(), keras.layers.Dense(1)])
    g = gradient_through_time(model, np.zeros((T, F)), np.zeros(1), loss="mse")
    assert g.layers == []


def test_watched_zero_changes_nothing():
    layer = LSTM(3, return_sequences=True)
    x = as_batch(np.random.default_rng(7).normal(size=(T, F)))
    plain, _ = run_traced(layer, x, list(range(T)))
    zero, _ = run_traced(layer, x, list(range(T)), perturb=lambda k, t, h: h + ops.zeros_like(h))
    np.testing.assert_array_equal(np.asarray(plain), np.asarray(zero))
