r"""The Markov chain of order k as a language model: counted on the training text, no gradient descent.

The model is ``token ids (B, T) -> MarkovChain -> exp``: at every position t,
$p(x_{t+1} = v \mid x_{t-k+1}, \dots, x_t)$ with add-$\alpha$ smoothing and
backoff (``seqlab.layers.markov.MarkovChain``), read only from the window's
ids before it, so its test metrics sit on the same held-out positions as
every other language model's. The chain's tables are sized by what it
counts, so the builder counts the whole training text (seconds) and the
``fit`` hook only reports that one closed-form step to the callbacks, like
the echo state network's. Generation reads the last k ids
(``MarkovChain.next_fn``), never a recurrent state.

Keras and the layers are imported inside the builder and the fit, so
registering the architecture does not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import Range
from seqlab.data.sequence_data import SequenceData
from seqlab.models.closed_form import fit_in_closed_form
from seqlab.models.registry import Architecture, register_architecture
from seqlab.tasks.language import MARKOV_ALPHA

if TYPE_CHECKING:
    import keras

CHAIN_LAYER = "markov_chain"


def build_markov(data: SequenceData, order: int, alpha: float) -> keras.Model:
    import keras

    from seqlab.data.text_windows import split_ids
    from seqlab.layers.markov import MarkovChain
    from seqlab.models.task_model import TaskModel
    from seqlab.tasks import get_task
    from seqlab.tasks.language import HEAD_LAYER, tokenizer_of

    task = get_task(data.task)
    [spec] = task.inputs(data)
    tokens = keras.Input(shape=spec.shape, dtype=spec.dtype, name=spec.name)
    chain = MarkovChain(order, tokenizer_of(data).vocab_size, alpha=alpha, name=CHAIN_LAYER)
    chain.fit(split_ids(data, "train"))  # counting: its tables' sizes must be known to build the graph
    log_probs = chain(tokens)  # (B, T, V): log p(x_{t+1} | the last k ids up to t)
    probabilities = keras.layers.Activation("exponential", name=HEAD_LAYER)(log_probs)  # the task's contract
    return TaskModel(tokens, probabilities, name=f"markov_order_{order}_{task.name}")


def report_counted(model: keras.Model, data: SequenceData, spec, callbacks: list) -> None:
    """The counting happened in the builder: only report it, as one closed-form step."""
    fit_in_closed_form(model, data, callbacks)


def markov_steps(model: keras.Model):
    """The chain on its last k ids at every step (``seqlab.models.context_steps``)."""
    import numpy as np
    from keras import ops

    from seqlab.models.context_steps import ContextSteps, left_aligned

    chain = model.get_layer(CHAIN_LAYER)

    def last_probabilities(context, count):  # the chain reads from each row's start: its ids first
        probabilities = ops.exp(chain(left_aligned(context, count)))
        return ops.take_along_axis(probabilities, (count - 1)[:, None, None], axis=1)[:, 0]

    return ContextSteps(lambda context: np.exp(ops.convert_to_numpy(chain(context))), chain.order,
                        last_probabilities)


register_architecture(
    Architecture(
        name="markov",
        title="Markov chain",
        tasks=("language",),
        family="Markov chains",
        teaches="first- and second-order chains over tokens; likelihood; sampling",
        description=(
            "The next token from the last k tokens (order 1 to 5), by counting the whole training text: "
            "add-alpha smoothing, backing off to shorter contexts never seen. Fitted in seconds, no gradients."
        ),
        build=build_markov,
        defaults={"order": 3, "alpha": MARKOV_ALPHA},
        ranges={"order": Range(1, 5), "alpha": Range(0.0, 1e3)},
        fit=report_counted,
        steps=markov_steps,
    )
)
