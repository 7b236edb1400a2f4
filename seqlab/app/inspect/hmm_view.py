"""Inspect's view of a hidden Markov model: Viterbi path and posteriors over the text, A and B, the equations.

Registered for ``HMMTrace`` results (``seqlab.inspect.hmm``) in
``inspect_view.RESULT_VIEWS``; the numbers are the layer's own ``posterior``,
``viterbi`` and forward log-likelihood on the traced token ids.
"""

from __future__ import annotations

import streamlit as st

from seqlab.app import cache, figures
from seqlab.app.inspect.inspect_text_view import token_labels
from seqlab.app.inspect.inspect_view import RESULT_VIEWS, InspectInput, equations_panel, sample_outcome
from seqlab.app.task_views import view_for
from seqlab.data import SequenceData
from seqlab.inspect import HMMTrace, Trace
from seqlab.plots import emission_matrix, hmm_path, hmm_posteriors, transition_matrix
from seqlab.runs import Run

DEFAULT_TOKENS = 30  # columns of B shown at first
MAX_TOKENS = 120  # beyond this a heatmap column is too thin to read


@view_for(RESULT_VIEWS, "HMMTrace")
def hmm_view(run: Run, data: SequenceData, tr: Trace, inp: InspectInput) -> None:
    """Every HMM of the trace (one in the ``hmm`` architecture)."""
    for hmm in tr.of(HMMTrace):
        _one_hmm(run, data, tr, hmm, inp)


def _one_hmm(run: Run, data: SequenceData, tr: Trace, hmm: HMMTrace, inp: InspectInput) -> None:
    steps = len(inp.time)
    cards = st.columns(3)
    cards[0].metric("log p(x) of the text", f"{hmm.log_likelihood:.4g} nats", border=True,
                    help="The forward recursion's log-likelihood of the traced tokens (the HMM layer's output).")
    cards[1].metric("per token", f"{hmm.log_likelihood / max(steps, 1):.3g} nats", border=True,
                    help="log p(x) / N: comparable between texts of different lengths.")
    cards[2].metric("log p(x, ẑ) of the Viterbi path", f"{hmm.path_log_prob:.4g} nats", border=True,
                    help="The joint probability of the text and its single most probable state path; "
                         "p(x) sums over every path, so it is larger.")

    pictures, maths = st.columns(2, gap="medium")  # the HMM's equations are wider than a cell's
    with pictures:
        figures.show(hmm_path(hmm.arrays["path"], inp.time,
                                 title=f"Viterbi state path of {hmm.name}: the most probable ẑₙ per token"),
                        key="inspect.hmm.path")
        figures.show(hmm_posteriors(hmm.arrays["gamma"], inp.time, hmm.arrays["path"],
                                       title=f"Posterior state probabilities γₙ(k) = p(zₙ = k | x) of {hmm.name}"),
                        key="inspect.hmm.gamma")
        st.caption("Each column is one token; its colours sum to 1 over the states: how sure the model is which "
                   "hidden state produced that token, given the whole text (forward-backward). The circles are "
                   "the Viterbi path: the best single path can pass through a state that is not the most "
                   "probable one at that token.")
    with maths:
        equations_panel(hmm, source="the HMM layer's docstring")
        sample_outcome(run, data, tr.outputs, inp.y_true)

    _parameters(run, hmm)
    st.caption("Fitted by Baum-Welch (expectation-maximisation, closed-form M-steps), not by gradient descent: "
               "there is no gradient through time to show.")


def _parameters(run: Run, hmm: HMMTrace) -> None:
    """``A`` as a heatmap; ``B`` over the most probable tokens, with a control for how many."""
    vocab_size = hmm.arrays["B"].shape[1]
    transitions, emissions = st.columns([2, 3], gap="medium")
    with transitions:
        figures.show(transition_matrix(hmm.arrays["A"], title=f"Transition matrix A ({hmm.states} states)"),
                        key="inspect.hmm.A")
        st.caption("Row j: where state j goes next; each row sums to 1.")
    with emissions:
        shown = min(DEFAULT_TOKENS, vocab_size)
        if vocab_size > DEFAULT_TOKENS:
            shown = st.slider("Tokens shown in B (the most probable first)", 5, min(MAX_TOKENS, vocab_size),
                              shown, key=f"inspect.hmm.tokens.{run.run_id}",
                              help=f"The vocabulary has {vocab_size:,} tokens; B shows those that some state "
                                   "emits most probably.")
        top = hmm.top_tokens(shown)
        figures.show(
            emission_matrix(hmm.arrays["B"][:, top], token_labels(cache.tokenizer(run), top), vocab_size,
                            title="Emission matrix B: p(token | state)"),
            key="inspect.hmm.B",
        )
        st.caption("Row k: which tokens state k emits; each row sums to 1 over the whole vocabulary. Tokens "
                   "that share a state are what the HMM found alike (for characters, often vowels, or spaces "
                   "and punctuation).")
