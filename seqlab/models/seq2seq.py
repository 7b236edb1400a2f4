r"""The encoder-decoder (sequence to sequence) for translation, with or without attention.

The **encoder** embeds the source ids (padding masked), or scales a source of numbers (an image read row by
row, for a caption), and reads them with ``layers`` recurrent layers of
seqlab's cells (optionally bidirectional, $h_j = [\overrightarrow{h}_j ; \overleftarrow{h}_j]$ projected
back to ``units``); its top states are the values attention reads, its last states start the decoder
(the notes' context vector). The **decoder** (``seqlab.layers.decoder.AttentionDecoder``) reads
``[START]`` and the target shifted right (teacher forcing) and gives every next token's probabilities.

The model is ``[source (B, S), target_in (B, L)] -> (B, L, V)``; the encoder is a nested model named
``encoder`` (``source -> [values, *last states]``) and the decoder a layer named ``decoder``, so decoding
(``seqlab.tasks.translate.translation``) runs the encoder once and the decoder's ``step`` once per token.

Keras and the layers are imported inside the builder: registering (and listing) must not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import Range, check_bool, check_dropout, check_positive_int
from seqlab.data.sequence_data import SequenceData
from seqlab.models.encoder_decoder import DECODER, ENCODER, real_steps
from seqlab.models.registry import Architecture, register_architecture

if TYPE_CHECKING:
    import keras

# The names of seqlab.layers.decoder's CELLS, ATTENTIONS and SCORES, written out so that listing needs no
# Keras (tests/models/test_seq2seq.py checks that both agree).
CELLS = ("simple_rnn", "lstm", "gru")
ATTENTIONS = ("none", "bahdanau", "luong", "local")
SCORES = ("dot", "general", "concat")
DEFAULTS = {
    "cell": "gru", "units": 64, "layers": 1, "bidirectional": False, "embedding_dim": 32,
    "attention": "bahdanau", "score": "general", "predictive": False, "half_width": 3, "input_feeding": True,
    "teacher_forcing": 1.0, "dropout": 0.0,
}  # fmt: skip


def source_input(data: SequenceData) -> keras.KerasTensor:
    """The source: ``S`` token ids, or ``S`` steps of ``F`` numbers (an image's rows, for a caption)."""
    import keras

    from seqlab.tasks.translate import translate_inputs

    spec = translate_inputs(data)[0]
    return keras.Input(shape=spec.shape, dtype=spec.dtype, name=spec.name)


def build_encoder(data: SequenceData, cell: str, units: int, layers: int, bidirectional: bool,
                  embedding_dim: int) -> keras.Model:
    """``source -> [values (B, S, units), *the last states of every layer]``."""
    import keras

    from seqlab.layers.recurrent import GRU, LSTM, SimpleRNN
    from seqlab.tasks.numeric import scale_inputs

    layer_cls = {"simple_rnn": SimpleRNN, "lstm": LSTM, "gru": GRU}[cell]
    source = source_input(data)
    if data.tokenizer is not None:  # ids: a learned embedding, the padding masked
        x = keras.layers.Embedding(data.tokenizer.vocab_size, embedding_dim, mask_zero=True,
                                   name="source_embedding")(source)
    else:  # numbers: scaled by the training statistics, inside the model
        x = scale_inputs(data)(source)
    last = []
    for i in range(layers):
        rnn = layer_cls(units, return_sequences=True, return_state=True, name=f"encoder_{cell}_{i + 1}")
        if bidirectional:
            rnn = keras.layers.Bidirectional(rnn, name=f"bidirectional_{i + 1}")
        x, *states = rnn(x)
        if bidirectional:  # [forward states, backward states] -> one state of `units` per kind (h, and c)
            half = len(states) // 2
            states = [
                keras.layers.Dense(units, activation="tanh", name=f"bridge_{i + 1}_{k + 1}")(
                    keras.layers.Concatenate()([forward, backward]))
                for k, (forward, backward) in enumerate(zip(states[:half], states[half:]))
            ]
            x = keras.layers.Dense(units, name=f"encoder_values_{i + 1}")(x)  # h_j back to `units`
        last.extend(states)
    return keras.Model(source, [x, *last], name=ENCODER)


def build_seq2seq(data: SequenceData, cell: str, units: int, layers: int, bidirectional: bool, embedding_dim: int,
                  attention: str, score: str, predictive: bool, half_width: int, input_feeding: bool,
                  teacher_forcing: float, dropout: float) -> keras.Model:
    import keras

    from seqlab.layers.decoder import AttentionDecoder
    from seqlab.models.task_model import TaskModel

    units, layers = check_positive_int("units", units), check_positive_int("layers", layers)
    bidirectional, dropout = check_bool("bidirectional", bidirectional), check_dropout(dropout)
    embedding_dim = check_positive_int("embedding_dim", embedding_dim)
    encoder = build_encoder(data, cell, units, layers, bidirectional, embedding_dim)
    source = source_input(data)
    target_in = keras.Input(shape=(data.horizon,), dtype="int32", name="target_in")
    values, *states = encoder(source)
    decoder = AttentionDecoder(
        data.target_tokenizer.vocab_size, embedding_dim=embedding_dim, cell=cell, units=units, layers=layers,
        attention=attention, score=score, predictive=check_bool("predictive", predictive),
        half_width=check_positive_int("half_width", half_width),
        input_feeding=check_bool("input_feeding", input_feeding), teacher_forcing=teacher_forcing,
        dropout=dropout, name=DECODER,
    )
    probabilities = decoder(target_in, values, real_steps(source), states)
    return TaskModel([source, target_in], probabilities, name=f"seq2seq_{attention}_translate")


def seq2seq_steps(model: keras.Model):
    """The decoder one token at a time, its states carried (``seqlab.models.seq2seq_steps``)."""
    from seqlab.models.seq2seq_steps import RecurrentDecoderSteps

    return RecurrentDecoderSteps(model)


register_architecture(
    Architecture(
        name="seq2seq",
        title="Encoder-decoder (RNN, attention)",
        tasks=("translate",),
        family="Encoder-decoder",
        teaches="context vector, teacher forcing, greedy and beam search",
        description=(
            "The notes' encoder-decoder: a recurrent encoder reads the source, its last state starts a recurrent "
            "decoder that writes the target one token at a time from [START] to [EOS], trained with teacher "
            "forcing. Attention lets every decoder step read all encoder states: Bahdanau's additive score with "
            "the state before the step, Luong's (dot, general or concat) with the state after it and the "
            "attentional state z̃_t, or Luong's local attention around a position p_t (monotonic, p_t = t, or "
            "predicted). 'none' leaves the last encoder state as the only context."
        ),
        build=build_seq2seq,
        defaults=DEFAULTS,
        choices={"cell": CELLS, "attention": ATTENTIONS, "score": SCORES},
        ranges={"half_width": Range(1, 50), "teacher_forcing": Range(0.0, 1.0), "layers": Range(1, 4),
                "embedding_dim": Range(1, 1024)},
        steps=seq2seq_steps,
    )
)
