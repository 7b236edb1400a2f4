r"""The next-token distribution at every position from a hidden Markov model's forward state."""

import keras
from keras import ops

from seqlab.layers.markov import HMM


@keras.saving.register_keras_serializable(package="seqlab")
class HMMNextToken(keras.layers.Layer):
    r"""An HMM read as a language model: $p(x_{t+1} \mid x_{\le t})$ at every position of a window.

    Equations:
        $$ p(z_{t+1} = k \mid x_{\le t}) = \frac{\sum_j \alpha_t(j) A_{jk}}{\sum_{j, k'} \alpha_t(j) A_{jk'}},
           \qquad p(x_{t+1} = v \mid x_{\le t}) = \sum_k p(z_{t+1} = k \mid x_{\le t})\, B_{kv} $$

        $\alpha_t$ is the forward variable of the wrapped `HMM` (in log
        space, from $\pi$ at the window's first id), $A$ its transitions and
        $B$ its emissions. The HMM's weights are fitted by `hmm.baum_welch`,
        not by gradient descent.

    Args:
        states: $K$, the number of hidden states.
        vocab_size: $V$, the number of token ids.
        seed: Seed of the HMM's initial parameters, or `None`.
        **kwargs: Base layer arguments.

    Call arguments:
        inputs: Integer token ids `(batch, time)` in [0, V).

    Returns:
        `(batch, time, V)` float32 probabilities of the next token.
    """

    def __init__(self, states, vocab_size, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.hmm = HMM(states, vocab_size, seed=seed, name="hmm")

    def build(self, input_shape=None):
        self.hmm.build()

    def call(self, inputs):
        hmm = self.hmm
        emissions, mask = hmm._inputs(inputs, None)
        log_alpha = hmm._forward(emissions, mask)[0]  # (B, T, K): log alpha_t
        log_next = ops.logsumexp(log_alpha[..., :, None] + hmm.log_A[None, None], axis=-2)  # (B, T, K)
        log_next = log_next - ops.logsumexp(log_next, axis=-1, keepdims=True)  # p(z_{t+1} | x_<=t)
        log_probs = ops.logsumexp(log_next[..., :, None] + hmm.log_B[None, None], axis=-2)  # (B, T, V)
        return ops.cast(ops.exp(log_probs), "float32")

    def compute_output_shape(self, input_shape):
        return (*input_shape, self.hmm.vocab_size)

    def get_config(self):
        config = {"states": self.hmm.states, "vocab_size": self.hmm.vocab_size, "seed": self.hmm.seed}
        return {**super().get_config(), **config}
