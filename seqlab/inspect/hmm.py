r"""The hidden Markov model's probe: posterior state probabilities, the Viterbi path, the forward log-likelihood.

A traced HMM (``seqlab.layers.markov.HMM``, or the ``HMMNextToken`` layer that
reads one as a language model) runs as it is; beside it the probe asks the
layer itself about the same token ids, so the pictures are the layer's own
numbers:

- ``hmm.posterior(ids)``: $\gamma_n(k) = p(z_n = k \mid x)$ (forward-backward),
  kept as ``("state", "time")``, one column per token, summing to 1;
- ``hmm.viterbi(ids)``: the most probable state path $\arg\max_z p(x, z)$ and its
  $\log p(x, \hat z)$;
- ``hmm(ids)``: the forward log-likelihood $\log p(x)$ (the layer's output);
- and the parameters $\pi$, $A$ and $B$ they were computed with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from keras import ops

from seqlab.inspect.trace import LayerResult, _Tracer, register_probe
from seqlab.layers.docs import equations as doc_equations
from seqlab.layers.markov import HMM
from seqlab.models.hmm_next_token import HMMNextToken

HMM_AXES = {
    "gamma": ("state", "time"),  # gamma[k, n] = p(z_n = k | x)
    "path": ("time",),  # the Viterbi state at each step (-1 where masked)
    "pi": ("state",),
    "A": ("from state", "to state"),
    "B": ("state", "token"),
}


@dataclass(frozen=True, kw_only=True)
class HMMTrace(LayerResult):
    """One hidden Markov model over one token sequence (a ``LayerResult`` of kind ``"HMM"``).

    Attributes:
        arrays: ``gamma`` ``(K, T)``, the posterior state probabilities, one column per
            step summing to 1 (0 at a masked step); ``path`` ``(T,)``, the Viterbi states;
            ``pi`` ``(K,)``, ``A`` ``(K, K)`` (rows: from) and ``B`` ``(K, V)``. Axes in ``axes``.
        log_likelihood: $\\log p(x)$ of the sequence, in nats (the forward recursion).
        path_log_prob: $\\log p(x, \\hat z)$ of the Viterbi path, in nats.
        equations: the HMM's docstring equations (then the wrapper's, for ``HMMNextToken``).
    """

    log_likelihood: float
    path_log_prob: float

    @property
    def states(self) -> int:
        return int(self.arrays["A"].shape[0])

    def top_tokens(self, k: int) -> np.ndarray:
        """Ids of the ``k`` tokens that some state emits most probably (largest ``max_k B[k, v]``), best first."""
        order = np.argsort(-self.arrays["B"].max(axis=0), kind="stable")
        return order[: max(0, int(k))]


@register_probe(HMM)
@register_probe(HMMNextToken)
def hmm_probe(tracer: _Tracer, layer) -> Callable:
    """Run the layer as it is; record the wrapped HMM's posterior, Viterbi path and log-likelihood."""
    hmm = layer.hmm if isinstance(layer, HMMNextToken) else layer
    blocks = doc_equations(hmm) + ([] if layer is hmm else doc_equations(layer))

    def call(inputs, mask=None, **kwargs):
        gamma = hmm.posterior(inputs, mask)  # (B, T, K)
        path, path_log_prob = hmm.viterbi(inputs, mask)  # (B, T), (B,)
        log_likelihood = hmm(inputs, mask=mask)  # (B,)
        parameters = {"pi": hmm.pi, "A": hmm.A, "B": hmm.B}

        def result(sample: int) -> HMMTrace:
            arrays = {
                "gamma": np.asarray(ops.convert_to_numpy(gamma))[sample].T,
                "path": np.asarray(ops.convert_to_numpy(path))[sample],
                **parameters,
            }
            return HMMTrace(
                name=layer.name, kind="HMM", arrays=arrays, axes=dict(HMM_AXES), equations=blocks,
                time_labels=list(tracer.time_labels),
                log_likelihood=float(np.asarray(ops.convert_to_numpy(log_likelihood))[sample]),
                path_log_prob=float(np.asarray(ops.convert_to_numpy(path_log_prob))[sample]),
            )

        tracer.record(result)
        return log_likelihood if layer is hmm else layer(inputs)  # an HMM's output is its log-likelihood

    return call
