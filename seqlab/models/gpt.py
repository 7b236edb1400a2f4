r"""GPT as a language architecture: a decoder-only Transformer, each position reading itself and what came before.

Seeds 000 and 002: GPT keeps the Transformer's decoder blocks without the
cross-attention (there is no source sentence) and predicts the next token at
every position, so one window of ``T`` ids trains ``T`` predictions at once::

    ids -> embedding (the task's) -> [Dense d] -> + positions -> N x decoder block -> LN -> Dense(V, softmax)

Each block (``seqlab.layers.transformer.TransformerDecoderBlock`` with
``cross_attention=False``, pre-norm as GPT-2) is masked multi-head
self-attention, a'_{ij} = q_i^T k_j / sqrt(d_k) with a_{ij} = 0 for j > i,
then the position-wise feed-forward network, each as x <- x + Sublayer(LN(x));
the stream leaves through a final layer norm. Positions are ``learned`` (a
vector per position, GPT's; the context is then at most ``T`` ids) or the
notes' ``sinusoidal`` PosEnc(t, 2i) = sin((t-1)/n^{2i/r}).

The width d is the embedding's (the dataset option ``embedding_dim``) unless
``width`` asks for another, and then a Dense projects the embedding to it.
``ff_units`` 0 means 4 d, as GPT. Generation steps every block with its
key/value cache (``seqlab.models.gpt_steps``).

Keras is imported inside the builder, so registering the architecture does not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import Range, check_positive_int
from seqlab.data.sequence_data import SequenceData
from seqlab.models.gpt_names import FINAL_NORM, POSITIONS_LAYER, PROJECTION
from seqlab.models.registry import Architecture, register_architecture

if TYPE_CHECKING:
    import keras

POSITIONS = ("learned", "sinusoidal")
ACTIVATIONS = ("gelu", "relu")
FF_MULTIPLE = 4  # ff_units 0: 4 d, as GPT and the original Transformer
# The layer names its steps look for.
BLOCK_PREFIX = "block_"


def check_gpt(layers, heads, width, ff_units) -> tuple[int, int, int, int]:
    """``(layers, heads, width, ff_units)``: sizes checked, heads dividing the width, ff_units 0 made 4 d."""
    layers, heads, width = (check_positive_int(name, value) for name, value in
                            (("layers", layers), ("heads", heads), ("width", width)))  # fmt: skip
    if isinstance(ff_units, bool) or not isinstance(ff_units, int) or ff_units < 0:
        raise ValueError(f"ff_units must be an integer >= 0 (0: {FF_MULTIPLE} x width), got {ff_units!r}.")
    if width % heads:
        fitting = ", ".join(str(h) for h in range(1, min(width, 16) + 1) if width % h == 0)
        raise ValueError(
            f"width {width} does not split into {heads} heads (each head reads d/h = width/heads dimensions): "
            f"choose heads dividing the width ({fitting}{', ...' if width > 16 else ''})."
        )
    return layers, heads, width, ff_units or FF_MULTIPLE * width


def build_gpt(
    data: SequenceData, layers: int, heads: int, width: int, ff_units: int, dropout: float, positions: str,
    activation: str,
) -> keras.Model:
    import keras

    from seqlab.checks import check_dropout
    from seqlab.layers.transformer import (
        LearnedPositionalEmbedding,
        SinusoidalPositionalEncoding,
        TransformerDecoderBlock,
    )
    from seqlab.models.task_model import build_task_model

    embedding_dim = int(data.options["embedding_dim"])
    layers, heads, width, ff_units = check_gpt(layers, heads, width or embedding_dim, ff_units)
    dropout = check_dropout(dropout)

    def body(x, sequences):
        if x.shape[-1] != width:
            x = keras.layers.Dense(width, name=PROJECTION)(x)  # (B, T, d)
        if positions == "learned":
            x = LearnedPositionalEmbedding(x.shape[1], name=POSITIONS_LAYER)(x)
        else:
            x = SinusoidalPositionalEncoding(name=POSITIONS_LAYER)(x)
        for i in range(layers):
            x = TransformerDecoderBlock(
                heads, ff_units, cross_attention=False, norm="pre", dropout=dropout, activation=activation,
                name=f"{BLOCK_PREFIX}{i + 1}",
            )(x)
        return keras.layers.LayerNormalization(epsilon=1e-5, name=FINAL_NORM)(x)  # pre-norm's last norm

    return build_task_model(data, body, name="gpt")


def gpt_steps(model: keras.Model):
    """The model one token at a time with every block's key/value cache (``seqlab.models.gpt_steps``)."""
    from seqlab.models.gpt_steps import GPTSteps

    return GPTSteps(model)


register_architecture(
    Architecture(
        name="gpt",
        title="GPT (decoder-only Transformer)",
        tasks=("language",),
        family="GPT",
        teaches="decoder-only causal LM; greedy, temperature and top-k sampling",
        description=(
            "A decoder-only Transformer language model: token embedding plus positions, N pre-norm decoder "
            "blocks of causal multi-head self-attention and a feed-forward network, a final layer norm and a "
            "softmax over the vocabulary at every position. Width 0 takes the embedding's (embedding_dim); "
            "ff_units 0 is 4 x width. Generation keeps every block's keys and values in a cache."
        ),
        build=build_gpt,
        defaults={
            "layers": 4, "heads": 4, "width": 0, "ff_units": 0, "dropout": 0.0, "positions": "learned",
            "activation": "gelu",
        },
        choices={"positions": POSITIONS, "activation": ACTIVATIONS},
        ranges={"heads": Range(1, 64), "width": Range(0, 1024), "ff_units": Range(0, 4096)},
        steps=gpt_steps,
    )
)
