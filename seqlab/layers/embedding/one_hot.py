r"""Token ids as one-hot vectors, the notes' encoding A."""

import keras
from keras import ops

from seqlab.layers.embedding.arguments import check_size


@keras.saving.register_keras_serializable(package="seqlab")
class OneHot(keras.layers.Layer):
    r"""Token ids as one-hot vectors, the notes' encoding A.

    Equations:
        $$ x_{t,j} = I\left(\mathrm{word}(t) \equiv j\right), \qquad j = 1, \dots, N_{words} $$

        Word $i$ is $N_{words}$ neurons of which neuron $i$ has activity 1 and all
        others 0. A hidden layer on top trains the input-to-hidden matrix $V$
        ($H \times N_{words}$) directly. Ids count from 0 here; an id outside
        $[0, N_{words})$ becomes the zero vector.

    Args:
        vocabulary_size: Positive integer $N_{words}$, the number of token ids.

    Call arguments:
        inputs: Integer tensor of token ids, any shape, e.g. `(batch, T)`.

    Returns:
        Float tensor of shape `(*inputs.shape, vocabulary_size)`.

    Example:

    ```python
    OneHot(4)(np.array([[0, 3]]))  # [[[1, 0, 0, 0], [0, 0, 0, 1]]]
    ```
    """

    def __init__(self, vocabulary_size, **kwargs):
        super().__init__(**kwargs)
        self.vocabulary_size = check_size("vocabulary_size", vocabulary_size)

    def call(self, inputs):
        ids = ops.cast(inputs, "int32")  # a functional Input is float unless told otherwise
        return ops.one_hot(ids, self.vocabulary_size, dtype=self.compute_dtype)  # (..., ) -> (..., N_words)

    def compute_output_shape(self, input_shape):
        return (*input_shape, self.vocabulary_size)

    def get_config(self):
        return {**super().get_config(), "vocabulary_size": self.vocabulary_size}
