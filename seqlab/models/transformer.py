r"""The Transformer encoder as a body: a class per sentence, a tag per token, a forecast per window.

The prepared inputs (embedded tokens, or scaled windows) are projected to
the model width d when theirs differs, given their positions, and read by
N encoder blocks (``seqlab.layers.transformer.TransformerEncoderBlock``):
self-attention with h heads, W^Q W^K W^V W^O, a'_{ij} = q_i^T k_j / sqrt(d_k),
then the position-wise feed-forward network, each wrapped in a residual
connection and a layer norm (post-norm, the original Transformer; pre-norm,
GPT-2, which adds a final layer norm).

    x_t -> [Dense d] -> [CLS] -> + PosEnc(t) -> N x encoder block -> pool -> head

Self-attention alone sees a set, not a sequence: without positions (option
``positions`` ``none``) the encoder is a bag of words, and "Live to Work"
and "Work to Live" get the same class. ``sinusoidal`` adds the notes'
PosEnc(t, 2i) = sin((t-1)/n^{2i/r}), PosEnc(t, 2i+1) = cos((t-1)/n^{2i/r});
``learned`` a trained vector per position.

For a class per sequence (classify) or a forecast, the encoder's output is
pooled (option ``pooling``): ``cls`` prepends a learned [CLS] vector and reads
its encoding (BERT, the vision transformer), ``mean`` averages the real steps,
``last`` reads the last real step (as a recurrent network's h_T). For a tag
per step (label) every step feeds the head, and ``pooling`` is not used.
Padding is masked throughout: it gets zero attention weight, leaves the mean
and is never the last step, so a padded sentence is predicted as the
unpadded one.

Keras is imported inside the builder, so registering the architecture does not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import Range, check_dropout, check_positive_int
from seqlab.data.sequence_data import SequenceData
from seqlab.models.registry import Architecture, register_architecture

if TYPE_CHECKING:
    import keras

POSITIONS = ("sinusoidal", "learned", "none")
POOLINGS = ("cls", "mean", "last")
# The notes' two multi-head options: split d into h heads of d/h, or h heads of the full width d.
MULTI_HEAD = ("split", "full")
NORMS = ("pre", "post")

# The encoder's options, shared with the vision transformer (seqlab.models.vit).
ENCODER_DEFAULTS = {
    "layers": 2, "heads": 4, "width": 64, "ff_units": 128, "multi_head": "split", "norm": "pre", "dropout": 0.1,
}
ENCODER_CHOICES = {"multi_head": MULTI_HEAD, "norm": NORMS}
ENCODER_RANGES = {"heads": Range(1, 64), "width": Range(1, 1024), "ff_units": Range(1, 4096)}


def check_encoder(layers, heads, width, ff_units, multi_head: str, norm: str, dropout) -> dict:
    """The encoder's options, checked: positive sizes, and with ``split`` heads that divide the width."""
    sizes = {name: check_positive_int(name, value) for name, value in
             (("layers", layers), ("heads", heads), ("width", width), ("ff_units", ff_units))}
    if multi_head == "split" and sizes["width"] % sizes["heads"]:
        fitting = [h for h in range(1, min(sizes["width"], 16) + 1) if sizes["width"] % h == 0]
        raise ValueError(
            f"width {sizes['width']} does not split into {sizes['heads']} heads: with multi_head 'split' each "
            f"head reads d/h = width/heads dimensions. Choose heads dividing the width ({', '.join(map(str, fitting))}"
            f"{', ...' if sizes['width'] > 16 else ''}), or multi_head 'full' (every head reads the full width)."
        )
    return {**sizes, "multi_head": multi_head, "norm": norm, "dropout": check_dropout(dropout)}


def transformer_encoder(
    x: keras.KerasTensor, positions: str, layers: int, heads: int, ff_units: int, multi_head: str, norm: str,
    dropout: float,
) -> keras.KerasTensor:
    """``x`` (B, T, d) + its positions, then ``layers`` encoder blocks: (B, T, d), the mask kept."""
    import keras

    from seqlab.layers.transformer import (
        LearnedPositionalEmbedding,
        SinusoidalPositionalEncoding,
        TransformerEncoderBlock,
    )

    if positions == "sinusoidal":
        x = SinusoidalPositionalEncoding(name="positions")(x)
    elif positions == "learned":
        x = LearnedPositionalEmbedding(x.shape[1], name="positions")(x)
    if dropout:
        x = keras.layers.Dropout(dropout, name="input_dropout")(x)
    for i in range(layers):
        x = TransformerEncoderBlock(
            heads, ff_units, option=multi_head, norm=norm, dropout=dropout, name=f"encoder_{i + 1}"
        )(x)
    # Pre-norm leaves the residual stream unnormalised: one last layer norm, as GPT-2 and ViT.
    return keras.layers.LayerNormalization(epsilon=1e-5, name="final_norm")(x) if norm == "pre" else x


def build_transformer(data: SequenceData, positions: str, pooling: str, **encoder) -> keras.Model:
    import keras

    from seqlab.layers.class_token import ClassToken
    from seqlab.layers.last_step import LastRealStep
    from seqlab.layers.pooling import MaskedGlobalAveragePooling1D
    from seqlab.models.task_model import build_task_model

    encoder = check_encoder(**encoder)
    width = encoder.pop("width")

    def body(x, sequences):
        if x.shape[-1] != width:
            x = keras.layers.Dense(width, name="projection")(x)  # (B, T, d); the mask passes
        cls = pooling == "cls" and not sequences
        if cls:
            x = ClassToken(name="class_token")(x)  # (B, 1 + T, d), before the positions: [CLS] is position 1
        z = transformer_encoder(x, positions, **encoder)
        if sequences:
            return z  # (B, T, d), a tag per step
        if cls:
            return z[:, 0]  # z_CLS
        if pooling == "mean":
            return MaskedGlobalAveragePooling1D(name="mean_over_steps")(z)
        return LastRealStep(name="last_step")(z)

    return build_task_model(data, body, name="transformer")


register_architecture(
    Architecture(
        name="transformer",
        title="Transformer encoder",
        tasks=("classify", "label", "forecast"),
        family="Transformer",
        teaches="encoder blocks, residual + LayerNorm, padding masks",
        description=(
            "Self-attention instead of recurrence: the inputs (projected to width d) plus their positions "
            "go through N encoder blocks (multi-head self-attention and a position-wise feed-forward "
            "network, residuals and layer norms). A [CLS] vector, the mean or the last step of the encoded "
            "sequence feeds a class or a forecast; every step feeds a tag. Without positions it reads a "
            "bag of words. Padding is masked."
        ),
        build=build_transformer,
        defaults={**ENCODER_DEFAULTS, "positions": "sinusoidal", "pooling": "cls"},
        choices={**ENCODER_CHOICES, "positions": POSITIONS, "pooling": POOLINGS},
        ranges=ENCODER_RANGES,
    )
)
