r"""The neural language model of the notes as a language architecture: the last C tokens -> one tanh layer -> softmax.

Seed 004's $P(y_t = k \mid y_{t-1}, \dots, y_{t-C}) = \mathrm{softmax}_k(W \tanh(\tilde V [a_{i(t-1)}; \dots;
a_{i(t-C)}] + b) + c)$ (``seqlab.layers.language.NeuralLanguageModel``, with
its own learned embedding), trained by gradient descent.

The language task predicts the next token at every position of a window of
``T`` ids, so this model does too: position t reads the ``C`` ids up to and
including it, the window *left-padded* with the padding id where fewer than
``C`` came before (the first positions of a window). So it is judged on
exactly the held-out positions of every other language model and of the
baselines, and like them it reads only the window: a recurrent model starts
each window from a zero state, this one from padding. Generation feeds it the
last ``T`` ids (``seqlab.models.context_steps``).

Keras and the layers are imported inside the builder, so registering the
architecture does not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import Range
from seqlab.data.sequence_data import SequenceData
from seqlab.models.context_steps import window_steps
from seqlab.models.registry import Architecture, register_architecture

if TYPE_CHECKING:
    import keras


def build_neural_lm(data: SequenceData, context: int, units: int) -> keras.Model:
    import keras
    from keras import ops

    from seqlab.layers.language import NeuralLanguageModel
    from seqlab.models.task_model import TaskModel
    from seqlab.tasks import get_task
    from seqlab.tasks.language import HEAD_LAYER, tokenizer_of
    from seqlab.text import PAD_ID

    task = get_task(data.task)
    [spec] = task.inputs(data)
    tokens = keras.Input(shape=spec.shape, dtype=spec.dtype, name=spec.name)  # (B, T)
    padded = ops.pad(tokens, ((0, 0), (context - 1, 0)), constant_values=PAD_ID)  # (B, C - 1 + T)
    steps = data.lookback
    # Position t's context: ids t - C + 1 .. t, oldest first (padding before the window's start).
    contexts = ops.stack([padded[:, k : k + steps] for k in range(context)], axis=-1)  # (B, T, C)
    language_model = NeuralLanguageModel(
        tokenizer_of(data).vocab_size, context, embedding_dim=int(data.options["embedding_dim"]), units=units,
        name="neural_lm",
    )
    probabilities = keras.layers.TimeDistributed(language_model, name=HEAD_LAYER)(contexts)  # (B, T, V)
    return TaskModel(tokens, probabilities, name=f"neural_lm_{task.name}")


register_architecture(
    Architecture(
        name="neural_lm",
        title="Neural language model",
        tasks=("language",),
        family="Neural language model",
        teaches="softmax over the next word from the last $T$ words",
        description=(
            "The notes' neural language model: the last C tokens' learned embeddings, concatenated, one tanh "
            "hidden layer and a softmax over the vocabulary. Each position of a window reads the C ids up to "
            "it, left-padded at the window's start, so it is scored on the same held-out positions as the rest."
        ),
        build=build_neural_lm,
        defaults={"context": 8, "units": 128},
        ranges={"context": Range(1, 64)},
        steps=window_steps,
    )
)
