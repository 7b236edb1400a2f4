"""Text: standardisation and the character, word and BPE tokenisers (pure Python).

The Keras layers that run the same tokenisers inside a SavedModel are in
``seqlab.text.layers`` (it imports TensorFlow, so it is not imported here).
"""

from seqlab.text.bpe import BPETokenizer
from seqlab.text.char import CharTokenizer
from seqlab.text.standardize import Standardize
from seqlab.text.tokenizer import CLS, EOS, MASK, PAD, PAD_ID, SEP, START, UNK, UNK_ID, Tokenizer
from seqlab.text.word import WordTokenizer

__all__ = [
    "BPETokenizer",
    "CharTokenizer",
    "CLS",
    "EOS",
    "MASK",
    "PAD",
    "PAD_ID",
    "SEP",
    "Standardize",
    "START",
    "Tokenizer",
    "UNK",
    "UNK_ID",
    "WordTokenizer",
]
