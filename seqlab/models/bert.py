r"""BERT (seed 002): a Transformer encoder pre-trained on unlabelled text, then fine-tuned to classify.

    ids -> token + segment + position embeddings -> LN -> N x encoder block (post-norm, GELU) -> z_1..z_T

The input is ``[CLS] A [SEP] B [SEP]``; each token's vector is the sum of
its token embedding, its segment's (A or B, read from the ``[SEP]``
positions) and its learned position's. N post-norm encoder blocks
(``seqlab.layers.transformer.TransformerEncoderBlock``: self-attention with
h heads, W^Q W^K W^V W^O, a'_{ij} = q_i^T k_j / sqrt(d_k), then the
feed-forward network with GELU) give every token a vector that reads the
whole input, left and right: a contextual embedding.

- ``masked_lm`` (pre-training): the masked-LM head at every position (Dense
  d with GELU, LN, softmax over the vocabulary) and the next-sentence head on
  z_[CLS] (the pooler, Dense d with tanh, then 2 classes), in one output
  (``seqlab.tasks.masked_lm``).
- ``classify`` (fine-tuning, text data): the sentence as ``[CLS] x [SEP]``
  (``BertSentence``), the same encoder, then the task's classes on the
  sentence's vector: option ``pooling`` ``cls`` reads it from z_[CLS] through
  the pooler (BERT's), ``mean`` averages z over the sentence's tokens (the
  masked-LM head trains every token's vector, the next-sentence head only
  z_[CLS]; Sentence-BERT's choice).
  Option ``pretrained``: a ``masked_lm`` run id (read from the store the new
  run is written to) whose embeddings, encoder blocks and pooler start the
  classifier (its sizes are then the run's);
  empty: the same network from random weights. The classifier keeps its own
  tokeniser; ``BertSentence`` renumbers its ids into the pre-training
  vocabulary (a word the encoder never saw reads as [UNK]), so both must cut
  and standardise text alike (same tokeniser kind, case, punctuation and
  spacing options).

Keras is imported inside the builder, so registering the architecture does not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import Range, check_dropout, check_positive_int
from seqlab.data.sequence_data import SequenceData
from seqlab.models.registry import Architecture, register_architecture

if TYPE_CHECKING:
    import keras

    from seqlab.text import Tokenizer

# The layers a fine-tuned classifier takes from its pre-trained run, by name (and the pooler, with pooling cls).
ENCODER_LAYERS = ("embedding", "segment_embedding", "positions", "embedding_norm")
BERT_DEFAULTS = {"layers": 2, "heads": 4, "width": 64, "ff_units": 256, "dropout": 0.1, "pretrained": "",
                 "pooling": "cls"}
POOLINGS = ("cls", "mean")
BERT_RANGES = {"heads": Range(1, 64), "width": Range(1, 1024), "ff_units": Range(1, 4096)}


def bert_encoder(ids: keras.KerasTensor, vocab_size: int, max_length: int, layers: int, heads: int, width: int,
                 ff_units: int, dropout: float) -> keras.KerasTensor:
    """Token + segment + position embeddings, LN, ``layers`` post-norm GELU encoder blocks: ``(B, T, d)``, masked."""
    import keras

    from seqlab.data.bert_pretraining import SEP_ID
    from seqlab.layers.transformer import LearnedPositionalEmbedding, TransformerEncoderBlock
    from seqlab.models.bert_layers import SegmentIds, TokenAndSegment

    if width % heads:
        raise ValueError(f"width {width} does not split into {heads} heads (d/h = width/heads per head): choose "
                         "heads dividing the width.")
    tokens = keras.layers.Embedding(vocab_size, width, mask_zero=True, name="embedding")(ids)  # [PAD] masked
    segments = keras.layers.Embedding(2, width, name="segment_embedding")(SegmentIds(SEP_ID, name="segments")(ids))
    x = TokenAndSegment(name="token_and_segment")([tokens, segments])  # the [PAD] mask rides on to the blocks
    x = LearnedPositionalEmbedding(max_length, name="positions")(x)
    x = keras.layers.LayerNormalization(epsilon=1e-5, name="embedding_norm")(x)
    if dropout:
        x = keras.layers.Dropout(dropout, name="embedding_dropout")(x)
    for i in range(layers):
        x = TransformerEncoderBlock(heads, ff_units, norm="post", dropout=dropout, activation="gelu",
                                    name=f"encoder_{i + 1}")(x)
    return x


def pooler(z: keras.KerasTensor, width: int) -> keras.KerasTensor:
    """BERT's pooler: ``tanh(W z_[CLS] + b)`` ``(B, d)``, read by the next-sentence and the class heads."""
    import keras

    return keras.layers.Dense(width, activation="tanh", name="pooler")(z[:, 0])


def build_pretraining(data: SequenceData, layers, heads, width, ff_units, dropout) -> keras.Model:
    import keras

    from seqlab.models.bert_layers import MLM_HEAD, NSP_HEAD, MaskedLMModel, NextSentenceAtCLS
    from seqlab.tasks.masked_lm.tokenizer import bert_tokenizer_of

    vocab_size = bert_tokenizer_of(data).vocab_size
    ids = keras.Input((data.lookback,), dtype="int32", name="tokens")
    z = bert_encoder(ids, vocab_size, data.lookback, layers, heads, width, ff_units, dropout)
    h = keras.layers.Dense(width, activation="gelu", name="mlm_transform")(z)
    h = keras.layers.LayerNormalization(epsilon=1e-5, name="mlm_norm")(h)
    mlm = keras.layers.Dense(vocab_size, activation="softmax", name=MLM_HEAD)(h)  # (B, T, V)
    nsp = keras.layers.Dense(2, activation="softmax", name=NSP_HEAD)(pooler(z, width))  # (B, 2): random, next
    return MaskedLMModel(ids, NextSentenceAtCLS(name="heads")([mlm, nsp]), name="bert_masked_lm")


def id_map(source: Tokenizer, target: Tokenizer) -> list[int]:
    """The id in ``target`` of every token of ``source`` (``[UNK]`` for a token ``target`` lacks)."""
    from seqlab.text import PAD, UNK_ID

    if source.kind != target.kind or source.standardize.to_dict() != target.standardize.to_dict():
        raise ValueError(
            f"The pre-trained run cuts text with a {target.kind} tokeniser ({target.standardize}), this dataset "
            f"with a {source.kind} one ({source.standardize}): set the dataset's tokenizer, lowercase, "
            "strip_punctuation and collapse_whitespace options to the pre-training run's."
        )
    index = {token: i for i, token in enumerate(target.vocab)}
    return [0 if token == PAD else index.get(token, UNK_ID) for token in source.vocab]


def pretrained_run(run):
    """The pre-trained model and tokeniser of ``run``, a finished run whose task can be fine-tuned (masked_lm)."""
    from seqlab.tasks import task_for

    task_for("fine_tune", run.meta.task, run.run_id)
    return run.load_model(), run.load_tokenizer()


def encoder_sizes(model: keras.Model) -> dict:
    """The sizes of a pre-trained BERT: layers, heads, width, ff_units, vocabulary and positions."""
    blocks = [layer for layer in model.layers if layer.name.startswith("encoder_")]
    embedding = model.get_layer("embedding")
    return {"layers": len(blocks), "heads": blocks[0].num_heads, "ff_units": blocks[0].ff_units,
            "width": embedding.output_dim, "vocab_size": embedding.input_dim,
            "max_length": model.get_layer("positions").max_length}


def build_classifier(data: SequenceData, layers, heads, width, ff_units, dropout, pretrained,
                     pooling: str) -> keras.Model:
    import keras
    import numpy as np

    from seqlab.data.bert_pretraining import CLS_ID, SEP_ID
    from seqlab.models.bert_layers import BertSentence
    from seqlab.models.task_model import TaskModel
    from seqlab.tasks import get_task

    if data.tokenizer is None:
        raise ValueError(f"Dataset {data.name!r} is numbers, not text: bert classifies text (e.g. movie_sentiment).")
    source_size = data.tokenizer.vocab_size
    if pretrained:
        trained, tokenizer = pretrained_run(pretrained)
        sizes = encoder_sizes(trained)
        vocab_size, max_length = sizes.pop("vocab_size"), sizes.pop("max_length")
        layers, heads, width, ff_units = sizes["layers"], sizes["heads"], sizes["width"], sizes["ff_units"]
        mapping, cls_id, sep_id = id_map(data.tokenizer, tokenizer), CLS_ID, SEP_ID
        if data.lookback + 2 > max_length:
            raise ValueError(
                f"The pre-trained run reads at most {max_length} positions, [CLS] and [SEP] included; this dataset's "
                f"sentences are {data.lookback} tokens: set its max_tokens to {max_length - 2} or fewer."
            )
    else:
        # From scratch: the dataset's own vocabulary, with [CLS] and [SEP] appended.
        vocab_size, max_length = source_size + 2, data.lookback + 2
        mapping, cls_id, sep_id = list(range(source_size)), source_size, source_size + 1
    tokens = keras.Input((data.lookback,), dtype="int32", name="tokens")
    sentence = BertSentence(source_size, cls_id, sep_id, name="sentence")
    z = bert_encoder(sentence(tokens), vocab_size, max_length, layers, heads, width, ff_units, dropout)
    if pooling == "mean":
        from seqlab.layers.pooling import MaskedGlobalAveragePooling1D

        h = MaskedGlobalAveragePooling1D(name="mean_over_tokens")(z)  # the [PAD] mask rides on z
    else:
        h = pooler(z, width)
    if dropout:
        h = keras.layers.Dropout(dropout, name="pooler_dropout")(h)
    task = get_task(data.task)
    model = TaskModel(tokens, task.head(data, h), name=f"bert_{task.name}")
    sentence.id_map.assign(np.asarray(mapping, dtype="int32"))
    if pretrained:
        pooled = ("pooler",) if pooling == "cls" else ()
        names = [*ENCODER_LAYERS, *pooled, *(f"encoder_{i + 1}" for i in range(layers))]
        for name in names:
            model.get_layer(name).set_weights(trained.get_layer(name).get_weights())
    return model


def build_bert(data: SequenceData, layers, heads, width, ff_units, dropout, pretrained,
               pooling: str) -> keras.Model:
    sizes = {name: check_positive_int(name, value) for name, value in
             (("layers", layers), ("heads", heads), ("width", width), ("ff_units", ff_units))}
    dropout = check_dropout(dropout)
    from seqlab.tasks import get_task

    if get_task(data.task).head is None:  # pre-training: the architecture builds its two heads
        if pretrained:
            raise ValueError("pretrained names a run to fine-tune from; pre-training starts from random weights: "
                             "leave it empty.")
        if pooling != "cls":
            raise ValueError("pooling chooses how a fine-tuned classifier reads its sentence; pre-training's "
                             "next-sentence head always reads z_[CLS]: leave it at cls.")
        return build_pretraining(data, dropout=dropout, **sizes)
    return build_classifier(data, dropout=dropout, pretrained=pretrained, pooling=pooling, **sizes)


register_architecture(
    Architecture(
        name="bert",
        title="BERT",
        tasks=("masked_lm", "classify"),
        family="BERT",
        teaches="encoder-only; masked LM, next-sentence prediction, [CLS]",
        description=(
            "A Transformer encoder (post-norm, GELU) over token, segment and learned position embeddings. "
            "Pre-trained on masked_lm data (guess 15 % of the words, tell whether B follows A), then "
            "fine-tuned on a text classification dataset from its [CLS] vector: set pretrained to the "
            "pre-training run's id (empty: the same network from scratch)."
        ),
        build=build_bert,
        defaults=dict(BERT_DEFAULTS),
        ranges=BERT_RANGES,
        choices={"pooling": POOLINGS},
        run_options=("pretrained",),
    )
)
