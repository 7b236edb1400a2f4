r"""The features of a sequence's last real step: what a forecaster reads from an encoder's output.

A recurrent network's last state h_T summarises the window by construction;
an encoder's output at step T is that step's token after attending to all the
others. For a padded sequence the last real step is the one before the padding.
"""

import keras
from keras import ops

__all__ = ["LastRealStep"]


@keras.saving.register_keras_serializable(package="seqlab")
class LastRealStep(keras.layers.Layer):
    r"""The features of the last real (unmasked) step of every sequence.

    Equations:
        $$ \mathbf{h} = \mathbf{z}_{t^*}, \qquad t^* = \max \{ t : m_t = 1 \} $$

        Without a mask every step is real and $t^* = T$. A sequence without a
        real step gives $\mathbf{h} = \mathbf{0}$.

    Args:
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: `(batch, steps, features)`.
        mask: Optional `(batch, steps)` booleans, False on padding (Keras passes the inputs' mask).

    Returns:
        `(batch, features)`.

    Example:

    ```python
    z = np.array([[[1.0], [3.0], [9.0]]], dtype="float32")  # the last step is padding
    h = LastRealStep()(z, mask=np.array([[True, True, False]]))  # [[3.0]]
    ```
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def build(self, input_shape):
        if len(input_shape) != 3:
            raise ValueError(
                f"LastRealStep expects inputs of shape (batch, steps, features); received {tuple(input_shape)}."
            )

    def call(self, inputs, mask=None):
        if mask is None:
            return inputs[:, -1]
        steps = ops.arange(ops.shape(inputs)[1])[None, :]  # (1, T)
        last = ops.max(ops.where(ops.cast(mask, "bool"), steps, -1), axis=1)  # (B,); -1: no real step
        pick = ops.cast(ops.equal(steps, last[:, None]), inputs.dtype)  # (B, T) one-hot of t*, or zeros
        return ops.sum(inputs * pick[..., None], axis=1)

    def compute_mask(self, inputs, mask=None):
        return None  # the time axis is gone, and with it the mask

    def compute_output_shape(self, input_shape):
        return (input_shape[0], input_shape[2])
