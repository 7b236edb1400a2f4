"""Language models as Keras layers: P(y_t = k | the words before t) (seeds 000 and 004)."""

from seqlab.layers.language.neural_lm import NeuralLanguageModel

__all__ = ["NeuralLanguageModel"]
