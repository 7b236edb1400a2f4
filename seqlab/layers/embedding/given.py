r"""Given embedding vectors, fixed while the rest of the network trains: the notes' encoding B."""

import keras
import numpy as np

from seqlab.layers.embedding.glove import read_glove
from seqlab.layers.embedding.learned import LearnedEmbedding


@keras.saving.register_keras_serializable(package="seqlab")
class GivenEmbedding(LearnedEmbedding):
    r"""Given embedding vectors, fixed while the rest of the network trains: the notes' encoding B.

    Equations:
        $$ \mathrm{word}(t) = i \;\Longrightarrow\; \text{input } \mathbf{a}_i \in \mathbb{R}^r,
           \qquad \mathbf{z} = \mathrm{sig}\left(\tilde{V} \mathbf{a}_i\right) $$

        $\mathbf{a}_i$ are vectors of abstract attributes of word $i$, generated
        elsewhere (e.g. GloVe) and shared between applications; only the
        input-to-hidden matrix $\tilde{V}$ ($H \times r$) of the next layer trains.
        It computes what `LearnedEmbedding` (C) computes, with $A$ frozen: the
        weight `embeddings` is non-trainable.

    Args:
        vectors: Array of shape `(vocabulary_size, output_dim)`, row $i$ the
            vector $\mathbf{a}_i$ of token id $i$; or `None` when the weights come
            from a saved model (then give the two sizes).
        vocabulary_size: $N_{words}$; read from `vectors` when given.
        output_dim: The rank $r$; read from `vectors` when given.
        mask_zero: Whether id 0 is padding, masked for the layers that follow.

    Call arguments:
        inputs: Integer tensor of token ids, any shape, e.g. `(batch, T)`.

    Returns:
        Float tensor of shape `(*inputs.shape, output_dim)`.

    Example:

    ```python
    B = GivenEmbedding(vectors=np.eye(4, 2, dtype="float32"))  # V = 4 tokens, r = 2
    B(np.array([[3, 1, 0]]))  # (1, 3, 2)
    # From a GloVe text file and a tokeniser's vocabulary; .note names the tokens it lacked:
    # B = GivenEmbedding.from_glove("glove.6B.50d.txt", tokenizer.vocab)
    ```
    """

    def __init__(self, vectors=None, vocabulary_size=None, output_dim=None, mask_zero=False, **kwargs):
        if kwargs.pop("trainable", False):
            raise ValueError(
                "GivenEmbedding keeps its vectors fixed (trainable=False). To train them, use "
                "LearnedEmbedding(embeddings_initializer=keras.initializers.Constant(...)) or set its weights."
            )
        vectors = None if vectors is None else _checked_vectors(vectors)
        if vectors is not None:
            given = {"vocabulary_size": vocabulary_size, "output_dim": output_dim}
            for (name, value), size in zip(given.items(), vectors.shape):
                if value is not None and value != size:
                    raise ValueError(
                        f"Argument `{name}` ({value!r}) disagrees with `vectors` of shape {vectors.shape}: "
                        "leave it out, it is read from the vectors."
                    )
            vocabulary_size, output_dim = vectors.shape
        elif vocabulary_size is None or output_dim is None:
            raise ValueError(
                "GivenEmbedding needs `vectors`, or `vocabulary_size` and `output_dim` with saved weights."
            )
        super().__init__(vocabulary_size, output_dim, "zeros", mask_zero=mask_zero, trainable=False, **kwargs)
        self.vectors = vectors  # assigned in build; None when the weights come from a saved model
        self.note = None  # what from_glove had to fill in, for the user

    @classmethod
    def from_glove(cls, source, vocabulary, missing="zeros", seed=0, limits=None, **kwargs):
        """The layer with vectors read from a GloVe-format file (see `seqlab.layers.embedding.glove`).

        Args:
            source: a local path, an uploaded file or bytes.
            vocabulary: the tokens in id order, e.g. a tokeniser's `vocab`.
            missing: `"zeros"`, `"random"` or `"refuse"`: what tokens absent from the file get.
            seed: seed of the `"random"` vectors.
            limits: a `seqlab.inputs.InputLimits` (`None`: the server's upload limits).
            **kwargs: further arguments of the layer (`mask_zero`, `name`).

        Returns:
            The layer; its `note` says how many tokens the file lacked (None if none).
        """
        glove = read_glove(source, vocabulary, missing=missing, seed=seed, limits=limits)
        layer = cls(glove.vectors, **kwargs)
        layer.note = glove.note
        return layer

    def build(self, input_shape=None):
        super().build(input_shape)
        if self.vectors is not None:
            self.embeddings.assign(self.vectors)

    def get_config(self):
        config = super().get_config()
        for key in ("embeddings_initializer", "embeddings_regularizer", "embeddings_constraint", "trainable"):
            config.pop(key)
        return config  # without the vectors: a saved model keeps them as weights


def _checked_vectors(vectors):
    array = np.asarray(vectors)
    if array.ndim != 2 or 0 in array.shape:
        raise ValueError(
            f"Argument `vectors` must be a matrix of shape (vocabulary_size, output_dim). Received shape {array.shape}."
        )
    if not np.issubdtype(array.dtype, np.number) or not np.isfinite(array).all():
        raise ValueError("Argument `vectors` must hold finite numbers only (no nan, inf or text).")
    return array.astype("float32")
