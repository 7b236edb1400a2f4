r"""The hidden Markov model as a language architecture: Baum-Welch on the training windows, no gradient descent.

At every position t of a window the model gives the next token's
distribution from the forward state (``seqlab.layers.markov.HMM``):

$$ p(x_{t+1} = v \mid x_{\le t}) = \sum_k p(z_{t+1} = k \mid x_{\le t})\, B_{kv}, \qquad
   p(z_{t+1} = k \mid x_{\le t}) \propto \sum_j \alpha_t(j) A_{jk} $$

so it is scored on the same held-out positions as every language model, each
window read from $\pi$ like a recurrent model from its zero state. The ``fit``
hook runs Baum-Welch (EM, closed-form M-steps) on the training windows, then
smooths the emissions so no held-out token has probability 0.
Generation carries the forward state (``HMM.next_fn``), never the prompt again.

Keras and the layers are imported inside the builder and the fit, so
registering the architecture does not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import Range
from seqlab.data.sequence_data import SequenceData
from seqlab.models.closed_form import fit_in_closed_form
from seqlab.models.registry import Architecture, register_architecture

if TYPE_CHECKING:
    import keras

HMM_LAYER = "hmm_next_token"
EMISSION_SMOOTHING = 1e-3  # lambda: the share of the uniform in every emission row


def build_hmm(data: SequenceData, states: int, iterations: int) -> keras.Model:
    import keras

    from seqlab.models.hmm_next_token import HMMNextToken
    from seqlab.models.task_model import TaskModel
    from seqlab.tasks import get_task
    from seqlab.tasks.language import tokenizer_of

    task = get_task(data.task)
    [spec] = task.inputs(data)
    tokens = keras.Input(shape=spec.shape, dtype=spec.dtype, name=spec.name)
    # No seed of its own: the initial parameters come from NumPy's generator, seeded by the run's seed.
    probabilities = HMMNextToken(states, tokenizer_of(data).vocab_size, name=HMM_LAYER)(tokens)
    return TaskModel(tokens, probabilities, name=f"hmm_{task.name}")


def fit_baum_welch(model: keras.Model, data: SequenceData, spec, callbacks: list) -> None:
    r"""EM on the training windows (each a sequence, as the task reads them), then one reported "epoch".

    EM gives a token never seen in training (held-out characters, ``<unk>``)
    emission probability 0, and a held-out window holding one probability 0:
    the emissions are mixed with the uniform, ``B <- (1 - \lambda) B + \lambda / V``,
    the HMM's add-alpha smoothing.
    """
    hmm = model.get_layer(HMM_LAYER).hmm

    def solve() -> None:
        hmm.baum_welch(data.splits["train"].x, iterations=spec.model_options["iterations"])
        smoothed = (1.0 - EMISSION_SMOOTHING) * hmm.B + EMISSION_SMOOTHING / hmm.vocab_size
        hmm.set_parameters(hmm.pi, hmm.A, smoothed)

    fit_in_closed_form(model, data, callbacks, solve)


register_architecture(
    Architecture(
        name="hmm",
        title="Hidden Markov model",
        tasks=("language",),
        family="Hidden Markov model",
        description=(
            "K hidden states, each emitting tokens, with Markov transitions between them; fitted by "
            "Baum-Welch (EM) on the training windows. The next token comes from the forward state."
        ),
        build=build_hmm,
        defaults={"states": 8, "iterations": 20},
        ranges={"states": Range(1, 256), "iterations": Range(1, 500)},
        fit=fit_baum_welch,
    )
)
