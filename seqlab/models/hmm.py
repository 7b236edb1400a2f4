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
from seqlab.limits import check_memory, check_work
from seqlab.models.closed_form import fit_in_closed_form
from seqlab.models.registry import Architecture, register_architecture

if TYPE_CHECKING:
    import keras

HMM_LAYER = "hmm_next_token"
EMISSION_SMOOTHING = 1e-3  # lambda: the share of the uniform in every emission row
# One E-step reads every training window at once. Measured (float64, 2 cores): per token about 3 us plus 60 ns
# per pair of states; about 100 bytes per token and state (the forward, backward and posterior arrays) plus
# 16 per window and pair of states (the forward step's (N, K, K) sums).
SECONDS_PER_TOKEN, SECONDS_PER_TOKEN_PAIR = 3e-6, 60e-9
BYTES_PER_TOKEN_STATE, BYTES_PER_WINDOW_PAIR = 100, 16


def check_baum_welch(data: SequenceData, states: int, iterations: int) -> None:
    """Refuse Baum-Welch whose E-step memory or whole time, estimated from the options, passes the limits."""
    windows, steps = data.splits["train"].x.shape
    tokens = windows * steps
    smaller = "a shorter lookback or less text (the characters option)"
    check_memory(
        tokens * states * BYTES_PER_TOKEN_STATE + windows * states**2 * BYTES_PER_WINDOW_PAIR,
        f"Baum-Welch's E-step over {windows:,} windows of {steps:,} tokens with {states:,} states",
        f"use fewer states, {smaller}",
    )
    check_work(
        iterations * tokens * (SECONDS_PER_TOKEN + SECONDS_PER_TOKEN_PAIR * states**2),
        f"{iterations:,} iterations of Baum-Welch with {states:,} states over {tokens:,} tokens",
        f"use fewer states or iterations, {smaller}",
    )


def build_hmm(data: SequenceData, states: int, iterations: int) -> keras.Model:
    check_baum_welch(data, states, iterations)  # before anything is built: the fit is one long step
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


def hmm_steps(model: keras.Model):
    """The forward state carried from token to token (``seqlab.models.hmm_steps``)."""
    from seqlab.models.hmm_steps import HMMSteps

    return HMMSteps(model.get_layer(HMM_LAYER).hmm)


register_architecture(
    Architecture(
        name="hmm",
        title="Hidden Markov model",
        tasks=("language",),
        family="Hidden Markov model",
        teaches="joint $p(x, z)$; forward algorithm, Viterbi, Baum-Welch (EM) training",
        description=(
            "K hidden states, each emitting tokens, with Markov transitions between them; fitted by "
            "Baum-Welch (EM) on the training windows. The next token comes from the forward state."
        ),
        build=build_hmm,
        defaults={"states": 8, "iterations": 20},
        ranges={"states": Range(1, 256), "iterations": Range(1, 500)},
        fit=fit_baum_welch,
        steps=hmm_steps,
    )
)
