r"""Why a Transformer needs positions: without them "Live to Work" and "Work to Live" read the same.

Self-attention treats its inputs as a set (seeds 000, 004): permuting the
tokens permutes the outputs and changes nothing else,

$$ \mathrm{SelfAttention}(P X) = P \, \mathrm{SelfAttention}(X) $$

for every permutation matrix $P$, so a sentence and its words in another
order give the same set of output vectors and the same mean: a bag of
words. Adding $\mathrm{PosEnc}(t, :)$ to the token at position $t$ breaks
the symmetry. ``word_order`` runs one fixed (seeded, untrained) encoder
block on both orders, with and without the sinusoidal encoding, and
returns what it computed: nothing here is written down in advance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from keras import ops

DEFAULT_SENTENCES = ("Live to Work", "Work to Live")


@dataclass(frozen=True)
class WordOrder:
    """Both sentences through the same encoder block, with or without positions.

    Attributes:
        sentences: the two token lists (the second a permutation of the first).
        outputs: the block's output ``(T, d)`` for each sentence.
        positions: whether the sinusoidal encoding was added to the embeddings.
        base: the encoding's base $n$.
    """

    sentences: tuple[list[str], list[str]]
    outputs: tuple[np.ndarray, np.ndarray]
    positions: bool
    base: float

    @property
    def permutation(self) -> np.ndarray:
        """``p`` with ``second[k] == first[p[k]]``: where each word of the second sentence stands in the first."""
        first, second = self.sentences
        return np.array([first.index(word) for word in second])

    @property
    def token_difference(self) -> float:
        """The largest difference between a word's output vector in one order and in the other."""
        first, second = self.outputs
        return float(np.max(np.abs(second - first[self.permutation])))

    @property
    def mean_difference(self) -> float:
        """The largest difference between the two sentences' mean output vectors (a classifier's input)."""
        first, second = self.outputs
        return float(np.max(np.abs(second.mean(axis=0) - first.mean(axis=0))))

    def same(self, tolerance: float = 1e-5) -> bool:
        """Every word gets the same output vector in both orders (a bag of words)."""
        return self.token_difference <= tolerance


def _tokens(sentence: str) -> list[str]:
    return sentence.split()


def word_order(first: str = DEFAULT_SENTENCES[0], second: str = DEFAULT_SENTENCES[1], positions: bool = True,
               width: int = 8, heads: int = 2, base: float = 10000.0, seed: int = 0) -> WordOrder:
    r"""Run ``first`` and ``second`` (the same words in another order) through one seeded encoder block.

    The embeddings are a seeded random table (one row per distinct word), the
    block a ``TransformerEncoderBlock`` with seeded weights; with
    ``positions`` the block reads $\mathbf{x}_t + \mathrm{PosEnc}(t, :)$ (base ``base``).

    Raises:
        ValueError: when the sentences are not the same distinct words in another order.
    """
    from seqlab.layers.transformer import TransformerEncoderBlock, sinusoidal_encoding

    words = (_tokens(first), _tokens(second))
    if not words[0] or sorted(words[0]) != sorted(words[1]) or len(set(words[0])) != len(words[0]):
        raise ValueError(
            f"The two sentences must be the same distinct words in another order; got {first!r} and {second!r}: "
            "try 'Live to Work' and 'Work to Live'."
        )
    rng = np.random.default_rng(seed)
    vocabulary = sorted(words[0])
    table = rng.normal(size=(len(vocabulary), width)).astype("float32")
    block = TransformerEncoderBlock(num_heads=heads, ff_units=2 * width, name="encoder_block")
    x = np.stack([table[[vocabulary.index(w) for w in sentence]] for sentence in words])  # (2, T, d)
    block(x)  # build, then seed every weight: the same block whatever Keras's global seed is
    block.set_weights([rng.normal(scale=0.5, size=w.shape).astype("float32") for w in block.get_weights()])
    if positions:
        x = x + np.asarray(ops.convert_to_numpy(sinusoidal_encoding(x.shape[1], width, base=base)))[None]
    y = np.asarray(ops.convert_to_numpy(block(x, training=False)))
    return WordOrder(sentences=words, outputs=(y[0], y[1]), positions=positions, base=float(base))
