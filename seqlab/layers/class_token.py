r"""The [CLS] token: a learned vector put in front of every sequence, whose encoding stands for the whole.

BERT and the vision transformer classify from the encoder's output at this
first position: through self-attention it reads every real token, and, being
the same vector for every input, it carries no word or patch of its own.
"""

import keras
from keras import ops

__all__ = ["ClassToken"]


@keras.saving.register_keras_serializable(package="seqlab")
class ClassToken(keras.layers.Layer):
    r"""Prepends a learned [CLS] vector to every sequence; the mask gains a True in front.

    Equations:
        $$ \tilde{X} = [\mathbf{x}_{\mathrm{CLS}}; \mathbf{x}_1; \dots; \mathbf{x}_T] \in \mathbb{R}^{(T+1) \times d} $$

        $\mathbf{x}_{\mathrm{CLS}} \in \mathbb{R}^d$ is learned. After the
        encoder blocks, row 1 of $\tilde{X}$'s encoding, $\mathbf{z}_{\mathrm{CLS}}$,
        feeds the classifier. The token is never padding: a mask
        $(m_1, \dots, m_T)$ becomes $(1, m_1, \dots, m_T)$.

    Args:
        initializer: Initializer of $\mathbf{x}_{\mathrm{CLS}}$ (default: truncated normal with
            standard deviation 0.02, as BERT's embeddings).
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: `(batch, steps, d)`.
        mask: Optional `(batch, steps)` booleans, False on padding (Keras passes the inputs' mask).

    Returns:
        `(batch, steps + 1, d)`, the [CLS] vector first; its mask is `(batch, steps + 1)`.

    Example:

    ```python
    x = np.ones((2, 3, 4), dtype="float32")
    y = ClassToken()(x)  # (2, 4, 4): y[:, 0] is the [CLS] vector
    ```
    """

    def __init__(self, initializer=None, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.initializer = keras.initializers.get(initializer or keras.initializers.TruncatedNormal(stddev=0.02))

    def build(self, input_shape):
        if len(input_shape) != 3 or input_shape[-1] is None:
            raise ValueError(
                f"ClassToken expects inputs of shape (batch, steps, d) with d known; received {tuple(input_shape)}."
            )
        self.token = self.add_weight(name="token", shape=(input_shape[-1],), initializer=self.initializer)

    def call(self, inputs, mask=None):
        cls = ops.broadcast_to(ops.cast(self.token, inputs.dtype), (ops.shape(inputs)[0], 1, inputs.shape[-1]))
        return ops.concatenate([cls, inputs], axis=1)

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        return ops.concatenate([ops.ones_like(mask[:, :1], dtype="bool"), ops.cast(mask, "bool")], axis=1)

    def compute_output_shape(self, input_shape):
        steps = None if input_shape[1] is None else input_shape[1] + 1
        return (input_shape[0], steps, input_shape[2])

    def get_config(self):
        return {**super().get_config(), "initializer": keras.initializers.serialize(self.initializer)}
