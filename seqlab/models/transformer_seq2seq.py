r"""The encoder-decoder Transformer for translation (seed 002: encoder and decoder blocks).

The **encoder** embeds the source ids (padding masked), or projects a source of numbers (an image read row by
row) to the width d, adds their positions and reads them with N encoder blocks (self-attention, W^Q W^K W^V W^O,
a'_{ij} = q_i^T k_j / sqrt(d_k), then the feed-forward network), as ``seqlab.models.transformer``'s encoder.
The **decoder** (``seqlab.layers.transformer_decoder.TransformerDecoder``) embeds ``[START]`` and the target
shifted right, adds their positions and reads them with N decoder blocks: causal self-attention (position t
sees the tokens before it only), cross-attention on the encoder's outputs, the feed-forward network; a Dense
layer and a softmax give every next token's probabilities.

The model is ``[source (B, S), target_in (B, L)] -> (B, L, V)``, the recurrent ``seq2seq``'s inputs and
outputs, with the same nested ``encoder`` model (``source -> values``) and ``decoder`` layer: training, the
metrics, the free-running loss, decoding (its steps: ``seqlab.models.transformer_seq2seq_steps``) and the
SavedModel take it unchanged.

Keras and the layers are imported inside the builder: registering (and listing) must not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.data.sequence_data import SequenceData
from seqlab.models.registry import Architecture, register_architecture
from seqlab.models.encoder_decoder import DECODER, ENCODER, real_steps
from seqlab.models.seq2seq import source_input
from seqlab.models.transformer import ENCODER_CHOICES, ENCODER_DEFAULTS, ENCODER_RANGES, POSITIONS, check_encoder

if TYPE_CHECKING:
    import keras

DEFAULTS = {**ENCODER_DEFAULTS, "norm": "post", "dropout": 0.0, "positions": "sinusoidal"}


def build_transformer_encoder(data: SequenceData, positions: str, width: int, **blocks) -> keras.Model:
    """``source -> values (B, S, d)``: embedded ids (padding masked) or projected numbers, positions, N blocks."""
    import keras

    from seqlab.models.transformer import transformer_encoder
    from seqlab.tasks.numeric import scale_inputs

    source = source_input(data)
    if data.tokenizer is not None:  # ids: a learned embedding, the padding masked through the blocks
        x = keras.layers.Embedding(data.tokenizer.vocab_size, width, mask_zero=True, name="source_embedding")(source)
    else:  # numbers: scaled by the training statistics, inside the model, then projected to d
        x = keras.layers.Dense(width, name="projection")(scale_inputs(data)(source))
    return keras.Model(source, transformer_encoder(x, positions, **blocks), name=ENCODER)


def build_transformer_seq2seq(data: SequenceData, positions: str, **options) -> keras.Model:
    import keras

    from seqlab.layers.transformer_decoder import TransformerDecoder
    from seqlab.models.task_model import TaskModel

    options = check_encoder(**options)
    encoder = build_transformer_encoder(data, positions, **options)
    source = source_input(data)
    target_in = keras.Input(shape=(data.horizon,), dtype="int32", name="target_in")
    decoder = TransformerDecoder(
        data.target_tokenizer.vocab_size, data.horizon, layers=options["layers"], heads=options["heads"],
        width=options["width"], ff_units=options["ff_units"], multi_head=options["multi_head"],
        norm=options["norm"], dropout=options["dropout"], positions=positions, name=DECODER,
    )
    probabilities = decoder(target_in, encoder(source), real_steps(source))
    return TaskModel([source, target_in], probabilities, name="transformer_seq2seq_translate")


def transformer_seq2seq_steps(model: keras.Model):
    """The decoder one token at a time with its key/value caches (``seqlab.models.transformer_seq2seq_steps``)."""
    from seqlab.models.transformer_seq2seq_steps import TransformerDecoderSteps

    return TransformerDecoderSteps(model)


register_architecture(
    Architecture(
        name="transformer_seq2seq",
        title="Encoder-decoder Transformer",
        tasks=("translate",),
        family="Transformer",
        teaches="encoder and decoder blocks, causal and cross-attention masks",
        description=(
            "The Transformer of 'Attention is all you need': N encoder blocks read the source with "
            "self-attention (every token reads every other, padding masked); N decoder blocks read [START] and the "
            "target so far with causal self-attention, then the source with cross-attention, and write the next "
            "token. Trained on the whole target at once with teacher forcing; decoded one token at a time with a "
            "key/value cache, greedy or by beam search. The attention map is the last block's cross-attention, "
            "averaged over the heads."
        ),
        build=build_transformer_seq2seq,
        defaults=DEFAULTS,
        choices={**ENCODER_CHOICES, "positions": POSITIONS},
        ranges=ENCODER_RANGES,
        steps=transformer_seq2seq_steps,
    )
)
