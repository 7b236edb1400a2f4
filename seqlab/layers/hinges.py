r"""Piecewise-linear (hinge) features of inputs known over the forecast horizon."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="seqlab")
class Hinges(keras.layers.Layer):
    r"""Each input column, plus hinges $\max(0, x - \kappa)$ at fixed knots of chosen columns.

    Equations:
        $$ \phi(\mathbf{x}_{t+\tau}) = \left[ x_{t+\tau,1}, \dots, x_{t+\tau,K},\;
           \max(0, x_{t+\tau,k_1} - \kappa_1), \dots, \max(0, x_{t+\tau,k_J} - \kappa_J) \right] $$

        Demand is not linear in temperature: it rises when it is cold
        (heating) and when it is hot (cooling). Hinges at a few knots
        $\kappa_j$ let a linear readout, fitted by gradients or in closed
        form, draw that curve, at every horizon step $\tau$ alike. The knots
        are fixed (non-trainable): they belong to the data, not the model.

    Args:
        columns: Column index $k_j$ of each knot, integers in $[0, K)$.
        knots: The knot values $\kappa_j$, same length as `columns`, in the
            units the layer receives (scaled units inside seqlab's models).

    Call arguments:
        inputs: Known inputs of shape `(batch, horizon, K)`.

    Returns:
        Features of shape `(batch, horizon, K + J)`.

    Example:

    ```python
    hinges = Hinges(columns=[0, 0], knots=[-1.0, 1.0])
    phi = hinges(np.array([[[-2.0], [0.0], [2.0]]]))  # (1, 3, 3): x, max(0, x + 1), max(0, x - 1)
    ```
    """

    def __init__(self, columns=(), knots=(), **kwargs):
        super().__init__(**kwargs)
        self.columns = [int(c) for c in columns]
        self.knots = [float(k) for k in knots]
        if len(self.columns) != len(self.knots):
            raise ValueError(
                "Arguments `columns` and `knots` must have the same length. "
                f"Received: {len(self.columns)} columns and {len(self.knots)} knots"
            )
        if any(c < 0 for c in self.columns):
            raise ValueError(f"Argument `columns` must hold indices >= 0. Received: columns={self.columns}")

    def build(self, input_shape):
        if len(input_shape) != 3 or input_shape[-1] is None:
            raise ValueError(
                f"Hinges expects inputs of shape (batch, horizon, K) with known K; received {tuple(input_shape)}."
            )
        if self.columns and max(self.columns) >= input_shape[-1]:
            raise ValueError(
                f"Argument `columns` must index the {input_shape[-1]} input columns. Received: columns={self.columns}"
            )

    def call(self, inputs):
        if not self.columns:
            return inputs
        picked = ops.take(inputs, self.columns, axis=-1)  # (B, H, J)
        knots = ops.cast(ops.convert_to_tensor(self.knots), inputs.dtype)
        return ops.concatenate([inputs, ops.relu(picked - knots)], axis=-1)

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], input_shape[-1] + len(self.columns))

    def get_config(self):
        return {**super().get_config(), "columns": self.columns, "knots": self.knots}
