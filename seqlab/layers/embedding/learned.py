r"""A learned embedding, one-hot ids times a matrix: the notes' encoding C."""

import keras
from keras import ops

from seqlab.layers.embedding.arguments import check_size


@keras.saving.register_keras_serializable(package="seqlab")
class LearnedEmbedding(keras.layers.Layer):
    r"""A learned embedding, one-hot ids times a matrix: the notes' encoding C.

    Equations:
        $$ \mathbf{a}_i = A\,\mathbf{x}_t \quad\text{for}\quad \mathrm{word}(t) = i, \qquad
           A = \left[\mathbf{a}_1, \dots, \mathbf{a}_{N_{words}}\right] \in \mathbb{R}^{r \times N_{words}} $$

        $$ V = \tilde{V} A $$

        $\mathbf{x}_t$ is the one-hot vector of encoding A; the $i$-th column of
        $A$ holds the embedding $\mathbf{a}_i$ of rank $r$. With $\tilde{V}$
        ($H \times r$) the matrix from the embeddings to the hidden layer, the
        one-hot input reaches the hidden layer through $V = \tilde{V} A$ (written
        $W = \tilde{W} A$ in seed 004), so C is A with a factorised $V$. A product
        with a one-hot vector selects a column, so `call` looks the column up
        (`ops.take`) and `one_hot_product` multiplies: the same numbers, and the
        same as `keras.layers.Embedding` with the same matrix. The weight
        `embeddings` keeps Keras's layout $(N_{words}, r)$: row $i$ is
        $\mathbf{a}_i^\top$, so $A$ is `embeddings` transposed.

    Args:
        vocabulary_size: Positive integer $N_{words}$, the number of token ids.
        output_dim: Positive integer $r$, the rank of the embedding.
        embeddings_initializer: Initializer of `embeddings`. Default `"uniform"`,
            as in `keras.layers.Embedding`.
        embeddings_regularizer: Optional regularizer of `embeddings`.
        embeddings_constraint: Optional constraint of `embeddings`.
        mask_zero: Whether id 0 is padding, masked for the layers that follow.

    Call arguments:
        inputs: Integer tensor of token ids, any shape, e.g. `(batch, T)`.

    Returns:
        Float tensor of shape `(*inputs.shape, output_dim)`: $\mathbf{a}_{i(t)}$
        for every position.

    Example:

    ```python
    C = LearnedEmbedding(vocabulary_size=50, output_dim=8)
    C(np.array([[3, 1, 4]]))  # (1, 3, 8)
    C.A  # (8, 50), the notes' A
    ```
    """

    def __init__(
        self,
        vocabulary_size,
        output_dim,
        embeddings_initializer="uniform",
        embeddings_regularizer=None,
        embeddings_constraint=None,
        mask_zero=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.vocabulary_size = check_size("vocabulary_size", vocabulary_size)
        self.output_dim = check_size("output_dim", output_dim)
        self.embeddings_initializer = keras.initializers.get(embeddings_initializer)
        self.embeddings_regularizer = keras.regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = keras.constraints.get(embeddings_constraint)
        self.mask_zero = bool(mask_zero)
        self.supports_masking = self.mask_zero

    def build(self, input_shape=None):
        self.embeddings = self.add_weight(
            shape=(self.vocabulary_size, self.output_dim),  # A^T: row i is a_i
            name="embeddings",
            initializer=self.embeddings_initializer,
            regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint,
        )

    @property
    def A(self):
        r"""The notes' matrix A, shape $(r, N_{words})$: column $i$ is $\mathbf{a}_i$."""
        return ops.transpose(self.embeddings)

    @property
    def embedding_matrix(self):
        """The embeddings as a NumPy array of shape (vocabulary_size, output_dim), one row per token (for PCA)."""
        return ops.convert_to_numpy(self.embeddings)

    def call(self, inputs):
        ids = ops.cast(inputs, "int32")  # a functional Input is float unless told otherwise
        return ops.take(self.embeddings, ids, axis=0)  # (..., ) -> (..., r)

    def one_hot_product(self, inputs):
        r"""The literal $A\,\mathbf{x}_t$: one-hot vectors times the matrix (what `call` computes by look-up)."""
        x = ops.one_hot(ops.cast(inputs, "int32"), self.vocabulary_size, dtype=self.compute_dtype)  # (..., N_words)
        return ops.matmul(x, self.embeddings)  # (..., N_words) @ (N_words, r) -> (..., r)

    def compute_mask(self, inputs, mask=None):
        return ops.not_equal(inputs, 0) if self.mask_zero else None

    def compute_output_shape(self, input_shape):
        return (*input_shape, self.output_dim)

    def get_config(self):
        return {
            **super().get_config(),
            "vocabulary_size": self.vocabulary_size,
            "output_dim": self.output_dim,
            "embeddings_initializer": keras.initializers.serialize(self.embeddings_initializer),
            "embeddings_regularizer": keras.regularizers.serialize(self.embeddings_regularizer),
            "embeddings_constraint": keras.constraints.serialize(self.embeddings_constraint),
            "mask_zero": self.mask_zero,
        }
