"""Markov models of token sequences: the Markov chain of order k and the hidden Markov model."""

from seqlab.layers.markov.hmm import HMM
from seqlab.layers.markov.markov_chain import MarkovChain

__all__ = ["HMM", "MarkovChain"]
