r"""The notes' neural language model: the last T words -> embeddings -> one hidden layer -> softmax."""

import keras
from keras import ops

from seqlab.layers.embedding.arguments import check_size
from seqlab.layers.embedding.learned import LearnedEmbedding

@keras.saving.register_keras_serializable(package="seqlab")
class NeuralLanguageModel(keras.layers.Layer):
    r"""The notes' neural language model: the last T words, their embeddings, one hidden layer, a softmax.

    Equations:
        $$ P(y_t = k \mid y_{t-1}, \dots, y_{t-T})
           = \mathrm{softmax}_k\left(\mathbf{f}_w\left(\mathbf{a}_{i(t-1)}, \dots, \mathbf{a}_{i(t-T)}\right)\right) $$

        $$ \mathbf{f}_w = W \mathbf{z} + \mathbf{c}, \qquad
           \mathbf{z} = \tanh\left(\tilde{V} \left[\mathbf{a}_{i(t-1)}; \dots; \mathbf{a}_{i(t-T)}\right]
           + \mathbf{b}\right) $$

        $i(t-m)$ is the index of the word at position $t-m$ and $\mathbf{a}_i$ its
        learned embedding (encoding C, column $i$ of $A$, rank $r$). The $T$
        embeddings are concatenated most recent first, as written;
        $\tilde{V}$ ($H \times T r$) leads to the one hidden layer $\mathbf{z}$ of
        $H$ tanh units, and $W$ ($N_{words} \times H$) to the $N_{words}$ output
        neurons. Embeddings and network train together, self-supervised, on the
        next word of a corpus.

    Args:
        vocabulary_size: Positive integer $N_{words}$, the number of token ids.
        context_length: Positive integer $T$, the words the model reads.
        embedding_dim: Positive integer $r$, the rank of the embedding. Default 32.
        units: Positive integer $H$, the hidden units. Default 128.
        return_logits: Return $\mathbf{f}_w$ itself instead of the softmax, for a
            loss with `from_logits=True`. Default `False`.

    Call arguments:
        inputs: Integer tensor of shape `(batch, T)`: the last $T$ token ids in
            text order, oldest first ($y_{t-T}, \dots, y_{t-1}$).

    Returns:
        Tensor of shape `(batch, vocabulary_size)`: $P(y_t = k \mid \dots)$ for
        every $k$, or the logits.

    Example:

    ```python
    ids = keras.Input(shape=(3,), dtype="int32")
    model = keras.Model(ids, NeuralLanguageModel(vocabulary_size=60, context_length=3)(ids))
    model.compile("adam", "sparse_categorical_crossentropy")
    windows = np.random.randint(0, 60, size=(32, 3))  # the last T = 3 ids, oldest first
    model.fit(windows, windows[:, -1], epochs=1, verbose=0)  # next ids (N,)
    ```
    """

    def __init__(self, vocabulary_size, context_length, embedding_dim=32, units=128, return_logits=False, **kwargs):
        super().__init__(**kwargs)
        self.vocabulary_size = check_size("vocabulary_size", vocabulary_size)
        self.context_length = check_size("context_length", context_length)
        self.embedding_dim = check_size("embedding_dim", embedding_dim)
        self.units = check_size("units", units)
        self.return_logits = bool(return_logits)
        self.embedding = LearnedEmbedding(self.vocabulary_size, self.embedding_dim, name="embedding")
        self.hidden = keras.layers.Dense(self.units, activation="tanh", name="hidden")  # V~ and b
        self.readout = keras.layers.Dense(self.vocabulary_size, name="readout")  # W and c

    def build(self, input_shape):
        if len(input_shape) != 2 or input_shape[-1] != self.context_length:
            raise ValueError(
                f"NeuralLanguageModel reads windows of shape (batch, {self.context_length}) token ids; received "
                f"input_shape={tuple(input_shape)}. Cut the text into windows of context_length tokens."
            )
        self.embedding.build(input_shape)
        self.hidden.build((input_shape[0], self.context_length * self.embedding_dim))
        self.readout.build((input_shape[0], self.units))

    @property
    def A(self):
        r"""The notes' embedding matrix A, shape $(r, N_{words})$."""
        return self.embedding.A

    @property
    def V_tilde(self):
        r"""$\tilde{V}$, shape $(H, T r)$: the concatenated embeddings to the hidden layer."""
        return ops.transpose(self.hidden.kernel)

    @property
    def W(self):
        r"""$W$, shape $(N_{words}, H)$: the hidden layer to the output neurons."""
        return ops.transpose(self.readout.kernel)

    @property
    def embedding_matrix(self):
        """The learned embeddings as a NumPy array (vocabulary_size, embedding_dim), one row per token."""
        return self.embedding.embedding_matrix

    def call(self, inputs):
        a = self.embedding(inputs)  # (B, T) -> (B, T, r), oldest first
        a = ops.flip(a, axis=1)  # most recent first: [a_{i(t-1)}; ...; a_{i(t-T)}] as in the notes
        x = ops.reshape(a, (-1, self.context_length * self.embedding_dim))  # (B, T, r) -> (B, T r)
        z = self.hidden(x)  # (B, H)
        f = self.readout(z)  # (B, N_words)
        return f if self.return_logits else ops.softmax(f, axis=-1)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.vocabulary_size)

    def get_config(self):
        return {
            **super().get_config(),
            "vocabulary_size": self.vocabulary_size,
            "context_length": self.context_length,
            "embedding_dim": self.embedding_dim,
            "units": self.units,
            "return_logits": self.return_logits,
        }
