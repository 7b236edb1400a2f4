"""seqlab's Keras layers, grouped by family (one package each; see docs/architecture.md).

Each family package lists its public names in its `__all__`; they are all
importable from here, e.g. `from seqlab.layers import LSTM`.
"""

from seqlab.layers import attention, embedding, language, markov, narx, recurrent, tcn, transformer
from seqlab.layers.embedding import *  # noqa: F403  one-hot (A), given (B) and learned (C) embeddings
from seqlab.layers.language import *  # noqa: F403  the notes' neural language model
from seqlab.layers.markov import *  # noqa: F403  Markov chains and the hidden Markov model
from seqlab.layers.recurrent import *  # noqa: F403  the recurrent family's public names
from seqlab.layers.narx import *  # noqa: F403  the notes' NARX / TDNN
from seqlab.layers.attention import *  # noqa: F403  Bahdanau's, Luong's, self- and multi-head attention
from seqlab.layers.transformer import *  # noqa: F403  positions, feed-forward, encoder and decoder blocks
from seqlab.layers.tcn import *  # noqa: F403  dilated causal convolutions in residual blocks (TCN)
from seqlab.layers.state_space import *  # noqa: F403  S4D, Mamba's S6 and its block (state-space models)
from seqlab.layers.arx import ARX  # the linear autoregression with exogenous inputs, fitted in closed form
from seqlab.layers.hinges import Hinges  # features of the inputs known over a forecast's horizon
from seqlab.layers.convolution import ParallelConv1D  # the notes' convolutional layer, several widths
from seqlab.layers.pooling import MaskedGlobalAveragePooling1D, MaskedGlobalMaxPooling1D  # over the real steps
from seqlab.layers.decoder import AttentionDecoder  # an encoder-decoder's decoder, with or without attention
from seqlab.layers.transformer_decoder import TransformerDecoder  # the encoder-decoder Transformer's decoder
from seqlab.layers.class_token import ClassToken  # the learned [CLS] vector in front of a sequence
from seqlab.layers.last_step import LastRealStep  # the features of a padded sequence's last real step
from seqlab.layers.patches import ImagePatches  # an image as a sequence of patches (vision transformer)

__all__ = [
    *recurrent.__all__, *embedding.__all__, *language.__all__, *markov.__all__, *narx.__all__, "ARX", "Hinges",
    "ParallelConv1D", "MaskedGlobalAveragePooling1D", "MaskedGlobalMaxPooling1D", "AttentionDecoder",
    *attention.__all__, *transformer.__all__, "ClassToken", "LastRealStep", "ImagePatches",
    "TransformerDecoder", *tcn.__all__, *state_space.__all__,  # noqa: F405  bound by its import above
]
