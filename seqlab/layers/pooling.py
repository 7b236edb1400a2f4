r"""Pooling over the real steps of a padded sequence: the max and the mean over time, padding left out.

Keras's ``GlobalMaxPooling1D`` ignores the mask, so the padding of a short
sentence would enter its max; its ``GlobalAveragePooling1D`` divides by the
number of real steps, which is 0 for an empty sentence (NaN). These two read
the mask and give zeros for a sequence without a real step.
"""

import keras
from keras import ops

__all__ = ["MaskedGlobalAveragePooling1D", "MaskedGlobalMaxPooling1D"]


def _check_rank(layer, input_shape):
    if len(input_shape) != 3:
        raise ValueError(
            f"{type(layer).__name__} expects inputs of shape (batch, steps, features); "
            f"received {tuple(input_shape)}."
        )


def _step_mask(inputs, mask):
    """``(B, T, 1)`` booleans, True on the real steps (all of them without a mask)."""
    if mask is None:
        return ops.ones_like(inputs[..., :1], dtype="bool")
    return ops.expand_dims(ops.cast(mask, "bool"), -1)


class _MaskedPooling(keras.layers.Layer):
    # Pooling removes the time axis, and with it the mask.

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def build(self, input_shape):
        _check_rank(self, input_shape)

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        return (input_shape[0], input_shape[2])


@keras.saving.register_keras_serializable(package="seqlab")
class MaskedGlobalMaxPooling1D(_MaskedPooling):
    r"""The max over time of every feature, over the real (unmasked) steps only.

    Equations:
        $$ h_j = \max_{t \,:\, m_t = 1} z_{t,j} $$

        $m_t = 0$ on the padding of a short sequence: its steps never win the
        max, so a padded sentence pools to the same $\mathbf{h}$ as the
        unpadded one. A sequence without a real step pools to $\mathbf{0}$.

    Args:
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: `(batch, steps, features)`.
        mask: Optional `(batch, steps)` booleans, False on padding; Keras
            passes the mask of the inputs (an `Embedding(mask_zero=True)`'s).

    Returns:
        `(batch, features)`.

    Example:

    ```python
    z = np.array([[[1.0], [3.0], [9.0]]], dtype="float32")  # the last step is padding
    h = MaskedGlobalMaxPooling1D()(z, mask=np.array([[True, True, False]]))  # [[3.0]]
    ```
    """

    def call(self, inputs, mask=None):
        real = _step_mask(inputs, mask)  # (B, T, 1)
        largest = ops.max(ops.where(real, inputs, float("-inf")), axis=1)  # (B, F); -inf never wins
        return ops.where(ops.any(real, axis=1), largest, ops.zeros_like(largest))


@keras.saving.register_keras_serializable(package="seqlab")
class MaskedGlobalAveragePooling1D(_MaskedPooling):
    r"""The mean over time of every feature, over the real (unmasked) steps only.

    Equations:
        $$ \mathbf{h} = \frac{\sum_{t=1}^{T} m_t \mathbf{x}_t}{\max\left(1, \sum_{t=1}^{T} m_t\right)} $$

        The mean of the token embeddings of a sentence: $m_t = 0$ on its
        padding, which neither adds to the sum nor counts. A sequence without
        a real step pools to $\mathbf{0}$.

    Args:
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: `(batch, steps, features)`.
        mask: Optional `(batch, steps)` booleans, False on padding; Keras
            passes the mask of the inputs (an `Embedding(mask_zero=True)`'s).

    Returns:
        `(batch, features)`.

    Example:

    ```python
    x = np.array([[[1.0], [3.0], [9.0]]], dtype="float32")  # the last step is padding
    h = MaskedGlobalAveragePooling1D()(x, mask=np.array([[True, True, False]]))  # [[2.0]]
    ```
    """

    def call(self, inputs, mask=None):
        weights = ops.cast(_step_mask(inputs, mask), inputs.dtype)  # (B, T, 1)
        total = ops.sum(inputs * weights, axis=1)  # (B, F)
        return total / ops.maximum(ops.sum(weights, axis=1), 1.0)
