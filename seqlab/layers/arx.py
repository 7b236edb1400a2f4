r"""The linear autoregression with exogenous inputs (ARX), fitted in closed form by least squares."""

import math
import numbers

import keras
import numpy as np
from keras import ops

from seqlab.layers.recurrent.esn import ridge_fit


def _positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"Argument `{name}` must be a positive integer. Received: {name}={value!r}")
    return int(value)


def _rank_deficient(design, eps):
    """Whether the columns of `design` are linearly dependent to within relative precision `eps`."""
    return np.linalg.matrix_rank(design, rtol=max(design.shape) * eps) < design.shape[1]


@keras.saving.register_keras_serializable(package="seqlab")
class ARX(keras.layers.Layer):
    r"""A linear map from the last `lag` steps of a window to the next `horizon` values.

    Equations:
        $$ \hat{y}_{t+\tau} = c_\tau + \sum_{k=1}^{T} \left( a_{\tau k}\, y_{t-k}
           + \mathbf{b}_{\tau k}^\top \mathbf{x}_{t-k} \right), \quad \tau = 0, \dots, H - 1 $$

        $$ \text{cost}(W, \mathbf{c}) = \sum_{n=1}^{N} \lVert \mathbf{y}_n - W \mathbf{u}_n - \mathbf{c} \rVert^2
           + \lambda \lVert W \rVert^2 $$

        $$ \begin{bmatrix} W^\top \\ \mathbf{c}^\top \end{bmatrix}
           = \left( U^\top U + \lambda \tilde{I} \right)^{-1} U^\top Y $$

        The notes' NARX $y_t = f(y_{t-1}, \dots, y_{t-T}, x_{t-1}, \dots, x_{t-T}) + \epsilon_t$
        with a linear $f$: the honest linear reference for every nonlinear
        forecaster. Multi-step prediction is direct, one linear $f^\tau$ per
        horizon step $\tau$ (the rows of $W$), never iterated. $\mathbf{u}_n$
        is window $n$'s last $T$ = `lag` steps of all its features (the series
        $y$ and the exogenous $\mathbf{x}$), flattened oldest first; $U$ stacks
        them with a column of ones, $Y$ the targets of the $H$ steps.
        $\tilde{I}$ is the identity with a 0 for the bias: $\mathbf{c}$ is not
        shrunk. With $\lambda = 0$ this is ordinary least squares. The weights
        are non-trainable: `fit` sets them (`ridge_fit`, in float64), not
        gradients. `kernel` is $W^\top$, `bias` is $\mathbf{c}$.

    Args:
        horizon: Positive integer $H$, the number of steps predicted.
        lag: Positive integer $T$, the steps of each window used, counted
            back from its last; at most the window's length. `None` (default):
            the whole window.
        ridge: Penalty $\lambda \ge 0$ on $W$. Default 0 (least squares);
            raise it when inputs are collinear (a calendar flag that is
            constant over many steps).

    Call arguments:
        inputs: Windows of shape `(batch, time, features)`, time >= `lag`.

    Returns:
        $\hat{y}_t \dots \hat{y}_{t+H-1}$, shape `(batch, horizon)`.

    Example:

    ```python
    y = np.sin(np.arange(200) / 5.0)
    windows = np.stack([y[i : i + 20] for i in range(170)])[..., None]  # (170, 20, 1)
    targets = np.stack([y[i + 20 : i + 25] for i in range(170)])  # (170, 5)
    arx = ARX(5, lag=10, ridge=1e-6).fit(windows, targets)  # a pure sine's lags are collinear
    forecast = arx(windows[-1:])  # (1, 5): the next five values
    ```
    """

    def __init__(self, horizon, lag=None, ridge=0.0, **kwargs):
        super().__init__(**kwargs)
        self.horizon = _positive_int("horizon", horizon)
        self.lag = None if lag is None else _positive_int("lag", lag)
        if isinstance(ridge, bool) or not isinstance(ridge, numbers.Real) or not 0 <= ridge < math.inf:
            raise ValueError(f"Argument `ridge` must be a finite number >= 0. Received: ridge={ridge!r}")
        self.ridge = float(ridge)

    def build(self, input_shape):
        if len(input_shape) != 3 or input_shape[1] is None or input_shape[2] is None:
            raise ValueError(
                "ARX expects windows of shape (batch, time, features) with known time and features; "
                f"received input_shape={tuple(input_shape)}."
            )
        time, features = input_shape[1], input_shape[2]
        if self.lag is not None and self.lag > time:
            raise ValueError(
                f"Argument `lag` must be at most the window length {time}. Received: lag={self.lag}"
            )
        self.steps = self.lag or time  # T
        self.kernel = self.add_weight(
            shape=(self.steps * features, self.horizon), name="kernel", initializer="zeros", trainable=False
        )
        self.bias = self.add_weight(shape=(self.horizon,), name="bias", initializer="zeros", trainable=False)

    def lagged(self, inputs):
        """The regressors $\\mathbf{u}$: the last `lag` steps flattened oldest first, `(batch, lag * features)`."""
        window = inputs[:, -self.steps :, :]
        return ops.reshape(window, (-1, self.steps * window.shape[-1]))

    def fit(self, windows, targets):
        """Sets $W$ and $\\mathbf{c}$ by ridge regression of `targets` `(N, horizon)` on `windows`; returns self."""
        if not self.built:
            self.build(ops.shape(windows))
        if ops.ndim(targets) != 2 or ops.shape(targets)[1] != self.horizon:
            raise ValueError(
                f"`targets` must have shape (windows, {self.horizon}). Received: targets.shape={ops.shape(targets)}"
            )
        u = ops.convert_to_numpy(self.lagged(ops.convert_to_tensor(windows, "float64")))
        # Without a penalty, collinear regressors (a calendar flag constant over several steps)
        # leave no unique solution, and the normal equations would return noise, not an error.
        # Collinear to float32 precision: windows usually arrive in float32, and the layer runs in it.
        if self.ridge == 0 and _rank_deficient(np.c_[u, np.ones(len(u))], np.finfo(np.float32).eps):
            raise ValueError(
                "The lagged inputs (with the bias) are collinear, so least squares has no unique "
                "solution with ridge=0; set ridge > 0 or a smaller lag."
            )
        W, c = ridge_fit(u, targets, ridge=self.ridge)
        self.kernel.assign(W)
        self.bias.assign(c)
        return self

    def call(self, inputs):
        u = ops.cast(self.lagged(inputs), self.compute_dtype)
        return ops.matmul(u, self.kernel) + self.bias

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.horizon)

    def get_config(self):
        config = {"horizon": self.horizon, "lag": self.lag, "ridge": self.ridge}
        return {**super().get_config(), **config}
