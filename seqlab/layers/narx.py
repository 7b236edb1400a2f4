r"""The notes' NARX model (a TDNN): one network on the tapped delay lines of y and x, at every time step."""

import numbers

import keras
from keras import ops

from seqlab.layers.recurrent.arguments import check_units, get_activation

__all__ = ["NARX"]


def _check_positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"Argument `{name}` must be a positive integer. Received: {name}={value!r}")
    return int(value)


@keras.saving.register_keras_serializable(package="seqlab")
class NARX(keras.layers.Layer):
    r"""Nonlinear autoregressive model with exogenous inputs, applied at every step as a 1-D convolution.

    Equations:
        $$ \hat{y}_t = f_{\mathbf{w}, V}(y_{t-1}, \dots, y_{t-T}, x_{t-1}, \dots, x_{t-T}) $$

        $$ \mathbf{z}^{(1)}_t = \mathrm{sig}\left(V \mathbf{u}_t + \mathbf{b}^{(1)}\right),
           \quad \mathbf{u}_t = (y_{t-1}, \dots, y_{t-T}, x_{t-1}, \dots, x_{t-T})^\top $$

        $$ \mathbf{z}^{(l)}_t = \mathrm{sig}\left(W^{(l)} \mathbf{z}^{(l-1)}_t + \mathbf{b}^{(l)}\right),
           \quad l = 2, \dots, L $$

        $$ f_{\mathbf{w}, V}(\cdot) = \mathbf{w}^\top \mathbf{z}^{(L)}_t + c $$

        $$ \hat{y}_t = y_{t-1} + f_{\mathbf{w}, V}(y_{t-1}, \dots, y_{t-T}, x_{t-1}, \dots, x_{t-T})
           \quad \text{(residual form)} $$

        The notes' TDNN view: the same network is applied at every time
        instance, so $V \mathbf{u}_t = \sum_{k=1}^{T} V_k (y_{t-k}, x_{t-k})^\top$
        is a 1-D convolution over time with kernel size $T$ (the lag), and the
        hidden layers $l \ge 2$ and the output are $1 \times 1$ convolutions
        (one Dense per step). `kernel` holds $V$ as a convolution kernel
        `(T, features, units)`, the oldest row first; the property `V` gives
        it in the order of $\mathbf{u}_t$ above. With `outputs` $= H > 1$ the
        output layer gives the notes' direct multi-step predictions
        $\hat{y}_{t+\tau} = f^{\tau}_{\mathbf{w}, V}(\dots)$, $\tau = 0, \dots, H-1$
        (each plus $y_{t-1}$ in the residual form).

    Args:
        lag: $T$, the length of the tapped delay lines, a positive integer no
            longer than the window.
        units: Positive integer, the width of every hidden layer.
        layers: $L$, the number of hidden layers (positive integer). Default 1.
        activation: The notes' "sig" of the hidden layers. Default `"tanh"`.
        target: Index of the target column $y$ in the window's features; every
            other column is an exogenous input $x$. Default 0.
        outputs: Number of outputs per step: 1 (default) for the one-step
            prediction $\hat{y}_t$, $H$ for $\hat{y}_t, \dots, \hat{y}_{t+H-1}$.
        residual: Predict $y_{t-1} + f$ instead of $f$ (ResNet-like). Default
            `False`.
        return_sequences: Return the prediction at every step that has $T$
            rows before it (default `True`), or only after the last row.
        kernel_initializer: Initializer of $V$, $W^{(l)}$ and $\mathbf{w}$.
        bias_initializer: Initializer of the biases.
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: A window of shape `(batch, steps, features)`, rows
            $(y_s, x_s)$, oldest first; `steps` >= `lag`.

    Returns:
        `(batch, steps - lag + 1, outputs)`: output $k$ reads rows
        $k, \dots, k + T - 1$ and predicts row $k + T$, so the last one
        predicts the step after the window. Without `return_sequences`, only
        that last one, `(batch, outputs)`.

    Example:

    ```python
    narx = NARX(lag=4, units=8)
    window = np.random.normal(size=(2, 10, 3)).astype("float32")  # y and two exogenous inputs
    narx(window).shape  # (2, 7, 1): the predictions of rows 4..10
    ```
    """

    def __init__(
        self,
        lag,
        units,
        layers=1,
        activation="tanh",
        target=0,
        outputs=1,
        residual=False,
        return_sequences=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.lag = _check_positive_int("lag", lag)
        self.units = check_units(units)
        self.layers = _check_positive_int("layers", layers)
        self.activation = get_activation("activation", activation)
        if isinstance(target, bool) or not isinstance(target, numbers.Integral) or target < 0:
            raise ValueError(f"Argument `target` must be a column index >= 0. Received: target={target!r}")
        self.target = int(target)
        self.outputs = _check_positive_int("outputs", outputs)
        self.residual = bool(residual)
        self.return_sequences = bool(return_sequences)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.input_spec = keras.layers.InputSpec(ndim=3)

    def build(self, input_shape):
        steps, features = input_shape[1], input_shape[-1]
        if steps is not None and steps < self.lag:
            raise ValueError(
                f"NARX's lag T={self.lag} is longer than its window of {steps} steps: the tapped delay "
                "line needs T rows. Lower the lag or lengthen the window."
            )
        if self.target >= features:
            raise ValueError(
                f"NARX's target column {self.target} is out of range for inputs with {features} "
                f"feature(s) (valid: 0..{features - 1})."
            )
        self.kernel = self._weight("kernel", (self.lag, features, self.units), self.kernel_initializer)  # V
        self.bias = self._weight("bias", (self.units,), self.bias_initializer)
        # W^(l), b^(l) for l = 2..L: one Dense per step.
        self.hidden_kernels = [
            self._weight(f"hidden_kernel_{l}", (self.units, self.units), self.kernel_initializer)
            for l in range(2, self.layers + 1)
        ]
        self.hidden_biases = [
            self._weight(f"hidden_bias_{l}", (self.units,), self.bias_initializer) for l in range(2, self.layers + 1)
        ]
        self.output_kernel = self._weight("output_kernel", (self.units, self.outputs), self.kernel_initializer)  # w
        self.output_bias = self._weight("output_bias", (self.outputs,), self.bias_initializer)  # c

    def _weight(self, name, shape, initializer):
        return self.add_weight(shape=shape, name=name, initializer=initializer)

    @property
    def V(self):
        r"""The notes' V, shape (units, lag * features), columns in the order of $\mathbf{u}_t$.

        $y_{t-1}, \dots, y_{t-T}$ first, then each exogenous column's
        $x_{t-1}, \dots, x_{t-T}$ in the window's column order.
        """
        features = self.kernel.shape[1]
        order = [self.target] + [f for f in range(features) if f != self.target]
        newest_first = ops.flip(self.kernel, axis=0)  # row k-1 multiplies s_{t-k}
        blocks = [ops.transpose(newest_first[:, f, :]) for f in order]  # (units, T) each
        return ops.concatenate(blocks, axis=1)

    def call(self, inputs):
        if not self.return_sequences:
            inputs = inputs[:, -self.lag :, :]  # only the last delay line is needed
        # V u_t at every step: a 'valid' convolution reads only real rows, no padding.
        z = self.activation(ops.conv(inputs, self.kernel, strides=1, padding="valid") + self.bias)
        for W, b in zip(self.hidden_kernels, self.hidden_biases):
            z = self.activation(ops.matmul(z, W) + b)
        y_hat = ops.matmul(z, self.output_kernel) + self.output_bias  # (B, steps - T + 1, outputs)
        if self.residual:
            y_hat = y_hat + inputs[:, self.lag - 1 :, self.target, None]  # y_{t-1}: each line's newest y
        return y_hat if self.return_sequences else y_hat[:, -1, :]

    def compute_output_shape(self, input_shape):
        if not self.return_sequences:
            return (input_shape[0], self.outputs)
        steps = None if input_shape[1] is None else input_shape[1] - self.lag + 1
        return (input_shape[0], steps, self.outputs)

    def get_config(self):
        config = {
            "lag": self.lag,
            "units": self.units,
            "layers": self.layers,
            "activation": keras.activations.serialize(self.activation),
            "target": self.target,
            "outputs": self.outputs,
            "residual": self.residual,
            "return_sequences": self.return_sequences,
            "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
            "bias_initializer": keras.initializers.serialize(self.bias_initializer),
        }
        return {**super().get_config(), **config}
