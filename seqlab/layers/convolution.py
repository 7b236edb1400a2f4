r"""The notes' convolutional layer over time (seed 004): kernels of several widths side by side, zero padding."""

import numbers

import keras
from keras import ops

__all__ = ["ParallelConv1D"]


@keras.saving.register_keras_serializable(package="seqlab")
class ParallelConv1D(keras.layers.Layer):
    r"""1-D convolutions of several kernel widths over the same sequence, zero-padded, side by side.

    Equations:
        $$ \mathbf{z}^{(k)}_t = \mathrm{sig}\Big(\mathbf{b}^{(k)}
           + \sum_{j=0}^{k-1} C^{(k)}_j \, \tilde{\mathbf{x}}_{t + j - \lfloor (k-1)/2 \rfloor}\Big),
           \qquad \tilde{\mathbf{x}}_s = \begin{cases} m_s \mathbf{x}_s & 1 \le s \le T \\
           \mathbf{0} & \text{otherwise} \end{cases} $$

        $$ \mathbf{z}_t = \left[\mathbf{z}^{(k_1)}_t ; \dots ; \mathbf{z}^{(k_n)}_t\right] $$

        The notes' convolutional layer: the same kernel $C^{(k)}$ slides over
        the sentence, reading $k$ neighbouring tokens ($k$-grams); it "needs
        zero padding at sentence boundaries", so every step keeps an output
        (`padding="same"`: $\lfloor (k-1)/2 \rfloor$ zeros before, the rest
        after). The padded steps of a short sentence ($m_s = 0$, from the
        mask) are zeroed first, so they read exactly like the zero padding
        at its end: the outputs at its real steps are those of the unpadded
        sentence. Several widths $k_1, \dots, k_n$ (Kim 2014: 3, 4, 5)
        run in parallel and their `filters` features are concatenated.

    Args:
        filters: Positive integer, the number of kernels of each width.
        widths: The kernel widths $k_1, \dots, k_n$, positive integers.
            Default `(3, 4, 5)`.
        activation: The notes' "sig". Default `"relu"`.
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: `(batch, steps, features)`, e.g. token embeddings.
        mask: Optional `(batch, steps)` booleans, False on padding; Keras
            passes the mask of the inputs and the layer passes it on.

    Returns:
        `(batch, steps, filters * len(widths))`.

    Example:

    ```python
    conv = ParallelConv1D(filters=4, widths=(2, 3))
    x = np.random.normal(size=(2, 7, 5)).astype("float32")
    z = conv(x, mask=np.arange(7) < np.array([[7], [4]]))  # (2, 7, 8)
    ```
    """

    def __init__(self, filters, widths=(3, 4, 5), activation="relu", **kwargs):
        super().__init__(**kwargs)
        if isinstance(filters, bool) or not isinstance(filters, numbers.Integral) or filters < 1:
            raise ValueError(f"Argument `filters` must be a positive integer. Received: filters={filters!r}")
        widths = list(widths) if isinstance(widths, (list, tuple)) else widths
        if not isinstance(widths, list) or not widths or any(
            isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1 for k in widths
        ):
            raise ValueError(
                f"Argument `widths` must be a non-empty list of positive integers. Received: widths={widths!r}"
            )
        self.filters = int(filters)
        self.widths = [int(k) for k in widths]
        self.activation = keras.activations.get(activation)
        self.supports_masking = True
        self.convolutions = [
            keras.layers.Conv1D(self.filters, k, padding="same", activation=self.activation, name=f"width_{k}")
            for k in self.widths
        ]

    def build(self, input_shape):
        if len(input_shape) != 3 or input_shape[-1] is None:
            raise ValueError(
                f"ParallelConv1D expects inputs of shape (batch, steps, features) with known features; "
                f"received {tuple(input_shape)}."
            )
        for conv in self.convolutions:
            conv.build(input_shape)

    def call(self, inputs, mask=None):
        if mask is not None:  # padding reads as the zeros beyond the sentence's end
            inputs = inputs * ops.expand_dims(ops.cast(mask, inputs.dtype), -1)
        return ops.concatenate([conv(inputs) for conv in self.convolutions], axis=-1)

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.filters * len(self.widths))

    def get_config(self):
        return {
            **super().get_config(),
            "filters": self.filters,
            "widths": self.widths,
            "activation": keras.activations.serialize(self.activation),
        }
