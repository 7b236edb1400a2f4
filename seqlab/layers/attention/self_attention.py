r"""The notes' simple self-attention (seed 000): each state reads every state of its own layer."""

import keras
from keras import ops

from seqlab.layers.attention.masks import masked_softmax, padding_mask
from seqlab.layers.embedding.arguments import check_size


@keras.saving.register_keras_serializable(package="seqlab")
class SelfAttention(keras.layers.Layer):
    r"""Simple self-attention: layer $l$'s state at $t$ mixes its input with a context of the whole layer below.

    Equations:
        $$ \mathrm{align}(\mathbf{z}_{t,l-1}, \mathbf{z}_{t',l-1})
           = \frac{\exp(\mathbf{z}_{t,l-1}^T \mathbf{z}_{t',l-1})}
                  {\sum_{t''} \exp(\mathbf{z}_{t,l-1}^T \mathbf{z}_{t'',l-1})} $$

        $$ \mathbf{c}_{t,l-1} = \sum_{t'} \mathrm{align}(\mathbf{z}_{t,l-1}, \mathbf{z}_{t',l-1}) \,
           \mathbf{z}_{t',l-1} $$

        $$ \mathbf{z}_{t,l} = \mathrm{sig}(V_l \mathbf{z}_{t,l-1} + D_l \mathbf{c}_{t,l-1}) $$

        The alignment is the plain dot product (no learned query/key/value
        maps yet: those come with the Transformer's $W^Q, W^K, W^V$). Padded
        positions $t'$ get weight exactly 0. $V_l$ and $D_l$ are stored as
        `(d, units)` kernels.

    Args:
        activation: The notes' $\mathrm{sig}$, a Keras activation name or
            callable; `"tanh"` (default).
        units: Positive integer, the width of $\mathbf{z}_{t,l}$; None
            (default) keeps the input width $d$.

    Call arguments:
        z: `(batch, T, d)`, the states $\mathbf{z}_{t,l-1}$ of the layer below.
        mask: Optional `(batch, T)` booleans, False on padding (Keras masks
            propagate through).
        return_attention_scores: If True, also return the alignment weights.

    Returns:
        $\mathbf{z}_{t,l}$ `(batch, T, units)`, or `(z, a)` with the weights
        $a$ `(batch, T, T)` (row $t$: how much $\mathbf{z}_{t,l}$ reads from each $t'$).

    Example:

    ```python
    layer = SelfAttention()
    z = np.random.rand(2, 5, 4).astype("float32")
    z_next, a = layer(z, mask=np.array([[True] * 5, [True] * 3 + [False] * 2]), return_attention_scores=True)
    # z_next (2, 5, 4), a (2, 5, 5), a[1, :, 3:] == 0
    ```
    """

    def __init__(self, activation="tanh", units=None, **kwargs):
        super().__init__(**kwargs)
        self.activation = keras.activations.get(activation)
        self.units = None if units is None else check_size("units", units)
        self.supports_masking = True

    def build(self, input_shape):
        d = input_shape[-1]
        units = self.units or d
        self.V = self.add_weight(shape=(d, units), name="V", initializer="glorot_uniform")
        self.D = self.add_weight(shape=(d, units), name="D", initializer="glorot_uniform")

    def call(self, z, mask=None, return_attention_scores=False):
        scores = ops.matmul(z, ops.swapaxes(z, -1, -2))  # z_t^T z_t' for every pair, (B, T, T)
        a = masked_softmax(scores, None if mask is None else padding_mask(mask))
        c = ops.matmul(a, z)  # c_t = sum_t' align(z_t, z_t') z_t'
        z_next = self.activation(ops.matmul(z, self.V) + ops.matmul(c, self.D))
        return (z_next, a) if return_attention_scores else z_next

    def get_config(self):
        return {
            **super().get_config(),
            "activation": keras.activations.serialize(self.activation),
            "units": self.units,
        }
