r"""A hidden Markov model one token at a time: the ``Steps`` of the ``hmm`` architecture.

The state is the forward prediction $\log p(z_{n+1} \mid x_{\le n})$ ``(rows, K)``
(``HMM.next_fn``), so each step reads only the new ids, never the prompt
again; ``None`` before the first id (the HMM starts from $\pi$).
"""

from __future__ import annotations

import numpy as np
from keras import ops

from seqlab.models.steps import Steps


class HMMSteps(Steps):
    """An ``seqlab.layers.markov.HMM`` as a language model's steps (module docstring)."""

    in_graph = True

    def __init__(self, hmm):
        self.hmm, self.forward = hmm, hmm.next_fn()

    def start(self, rows: int) -> None:
        return None

    def read(self, ids, state):
        """``(probabilities (rows, 1, V) after the last of ``ids``, state)``: the forward pass over all of them."""
        log_probs, state = self.forward(np.asarray(ids), state)
        return np.exp(np.asarray(log_probs, dtype="float64"))[:, None], state

    def next(self, x, state, t):
        probabilities, state = self.read(np.asarray(x)[:, None], state)
        return probabilities[:, 0], state

    def initial(self, rows) -> dict:
        """$\\log \\pi$ per row: the prediction before the first id."""
        return {"prediction": ops.broadcast_to(self.hmm.log_pi, (rows, self.hmm.states))}

    def step(self, x, state, t):
        log_probs, prediction = self.hmm.read_next(ops.cast(x, "int32")[:, None], state["prediction"])
        return ops.exp(log_probs), {"prediction": prediction}

    def carried(self) -> dict:
        return {"prediction": (self.hmm.states,)}
