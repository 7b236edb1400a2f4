r"""BERT's own pieces: segment ids read from [SEP], a sentence put in BERT's form, both heads in one output, and
the pre-training model whose training step masks every batch anew.

Keras classes (registered ``seqlab>...``): ``SegmentIds``, ``BertSentence``,
``NextSentenceAtCLS`` and ``MaskedLMModel``; the architecture that uses them
is ``seqlab.models.bert``.
"""

from __future__ import annotations

import keras
from keras import ops

from seqlab.data.bert_masking import mask_tokens
from seqlab.data.bert_next_sentence import draw_pairs
from seqlab.data.bert_pretraining import FIRST_WORD_ID, MASK_ID, SEP_ID
from seqlab.models.task_model import TaskModel
from seqlab.text import PAD_ID

EPSILON = 1e-7  # probabilities are clipped before the log, as Keras's cross-entropy does
MLM_HEAD, NSP_HEAD = "mlm", "nsp"  # the names of the heads' last layers (seqlab.models.bert builds them)


@keras.saving.register_keras_serializable(package="seqlab")
class SegmentIds(keras.layers.Layer):
    r"""Which sentence each token belongs to: 0 up to and including the first [SEP], 1 after (BERT's A and B).

    Equations:
        $$ s_t = \mathbb{1}\Big[\sum_{t' < t} \mathbb{1}[x_{t'} = \texttt{[SEP]}] \ge 1\Big] $$

    Args:
        sep_id: The id of ``[SEP]``.

    Call arguments:
        ids: `(batch, T)` token ids.

    Returns:
        `(batch, T)` int32 segment ids, 0 or 1 (padding after B reads 1; it is masked anyway).

    Example:

    ```python
    SegmentIds(sep_id=3)(np.array([[2, 7, 3, 8, 9, 3, 0]]))  # [[0, 0, 0, 1, 1, 1, 1]]
    ```
    """

    def __init__(self, sep_id, **kwargs):
        super().__init__(**kwargs)
        self.sep_id = int(sep_id)

    def call(self, ids):
        seps = ops.cast(ops.equal(ops.cast(ids, "int32"), self.sep_id), "int32")
        return ops.cast(ops.cumsum(seps, axis=1) - seps > 0, "int32")

    def compute_output_spec(self, ids):
        return keras.KerasTensor(ids.shape, dtype="int32")

    def get_config(self):
        return {**super().get_config(), "sep_id": self.sep_id}


@keras.saving.register_keras_serializable(package="seqlab")
class BertSentence(keras.layers.Layer):
    r"""A sentence's ids in BERT's form: ``[CLS] sentence [SEP]``, its words renumbered into BERT's vocabulary.

    A classifier's tokeniser is its own (fitted on its training sentences);
    a pre-trained encoder knows the ids of its pre-training tokeniser. The
    table $m$ maps each id of the first to the id of the same token in the
    second (``[UNK]`` when the encoder never saw it), so the classifier's
    data and serving stay as they are.

    Equations:
        $$ (x_1, \dots, x_L) \mapsto (\texttt{[CLS]}, m(x_1), \dots, m(x_L), \texttt{[SEP]}, 0, \dots) $$

    Args:
        source_size: Size of the sentence's vocabulary (rows of $m$).
        cls_id, sep_id: The ids of ``[CLS]`` and ``[SEP]`` in BERT's vocabulary.

    Call arguments:
        ids: `(batch, T)` ids, padding (0) after the real tokens.

    Returns:
        `(batch, T + 2)` int32 ids, padding 0.

    Example:

    ```python
    layer = BertSentence(source_size=4, cls_id=2, sep_id=3)
    layer.build((None, 3))
    layer.id_map.assign(np.array([0, 1, 7, 8], "int32"))
    layer(np.array([[2, 3, 0]]))  # [[2, 7, 8, 3, 0]]
    ```
    """

    def __init__(self, source_size, cls_id, sep_id, **kwargs):
        super().__init__(**kwargs)
        self.source_size, self.cls_id, self.sep_id = int(source_size), int(cls_id), int(sep_id)

    def build(self, input_shape):
        self.id_map = self.add_weight(shape=(self.source_size,), dtype="int32", initializer="zeros",
                                      trainable=False, name="id_map")

    def call(self, ids):
        ids = ops.cast(ids, "int32")
        real = ops.not_equal(ids, PAD_ID)
        mapped = ops.where(real, ops.take(self.id_map, ids), PAD_ID)
        lengths = ops.sum(ops.cast(real, "int32"), axis=1)  # (B,)
        batch = ops.shape(ids)[0]
        cls = ops.full((batch, 1), self.cls_id, dtype="int32")
        out = ops.concatenate([cls, mapped, ops.zeros((batch, 1), dtype="int32")], axis=1)  # (B, T + 2)
        positions = ops.arange(ops.shape(out)[1], dtype="int32")[None, :]
        return ops.where(ops.equal(positions, lengths[:, None] + 1), self.sep_id, out)

    def compute_output_spec(self, ids):
        length = None if ids.shape[1] is None else ids.shape[1] + 2
        return keras.KerasTensor((ids.shape[0], length), dtype="int32")

    def get_config(self):
        return {**super().get_config(), "source_size": self.source_size, "cls_id": self.cls_id,
                "sep_id": self.sep_id}


@keras.saving.register_keras_serializable(package="seqlab")
class TokenAndSegment(keras.layers.Add):
    r"""The sum of the token and the segment embeddings, keeping the tokens' ``[PAD]`` mask.

    Keras's ``Add`` ORs its inputs' masks and drops the mask when one input has none (the segment embedding
    has none: segment 0 is a real segment), so the encoder's attention would read the padding.

    Equations:
        $$ \mathbf{x}_t = E_{\text{token}}[x_t] + E_{\text{segment}}[s_t],\qquad
           \text{mask}_t = (x_t \ne \texttt{[PAD]}) $$

    Call arguments:
        inputs: `[tokens, segments]`, both `(batch, T, d)`; the first carries the mask.

    Returns:
        `(batch, T, d)`, masked as the tokens are.

    Example:

    ```python
    ids = np.array([[5, 6, 0]])
    tokens = keras.layers.Embedding(8, 4, mask_zero=True)(ids)
    segments = keras.layers.Embedding(2, 4)(np.zeros((1, 3), "int32"))
    TokenAndSegment()([tokens, segments])  # (1, 3, 4), its mask [[True, True, False]]
    ```
    """

    def compute_mask(self, inputs, mask=None):
        return None if mask is None else mask[0]


@keras.saving.register_keras_serializable(package="seqlab")
class NextSentenceAtCLS(keras.layers.Layer):
    r"""Both pre-training heads in one output: the next-sentence probabilities at the [CLS] position.

    Equations:
        $$ y_{\cdot,0} = (p(\text{random}), p(\text{next}), 0, \dots, 0),\qquad
           y_{\cdot,t} = p_{\mathrm{MLM}}(\cdot \mid t),\; t \ge 1 $$

    Call arguments:
        inputs: `[mlm, nsp]`: `(batch, T, V)` and `(batch, 2)` probabilities.

    Returns:
        `(batch, T, V)`.

    Example:

    ```python
    mlm = np.full((1, 3, 4), 0.25, "float32")
    nsp = np.array([[0.3, 0.7]], "float32")
    NextSentenceAtCLS()([mlm, nsp])[0, 0]  # [0.3, 0.7, 0, 0]
    ```
    """

    def call(self, inputs):
        mlm, nsp = inputs
        padded = ops.pad(nsp, [[0, 0], [0, ops.shape(mlm)[-1] - ops.shape(nsp)[-1]]])  # (B, V)
        return ops.concatenate([ops.cast(padded, mlm.dtype)[:, None, :], mlm[:, 1:]], axis=1)

    def compute_output_spec(self, inputs):
        return keras.KerasTensor(inputs[0].shape, dtype=inputs[0].dtype)

    def compute_mask(self, inputs, mask=None):
        return None  # the loss picks its positions from the targets


@keras.saving.register_keras_serializable(package="seqlab")
class MaskedLMModel(TaskModel):
    r"""BERT's pre-training model: its training step pairs and masks each batch anew; its loss is the two heads' sum.

    ``y`` is aligned with the output (``seqlab.tasks.masked_lm``): ``y[:, 0]`` the next-sentence label,
    ``y[:, t]`` the token to guess (0: none). In training, the rows are true continuations and ``y[:, t]``
    marks the candidates: ``train_step`` gives half the rows another row's B
    (``seqlab.data.bert_next_sentence.draw_pairs``), then chooses 15 % of the candidates
    (``seqlab.data.bert_masking.mask_tokens``), both new draws at every batch from the model's seed
    generator, before the usual step; validation reads its fixed pairs and masking.
    Logs ``mlm_loss`` and ``nsp_loss`` beside ``loss``.

    In training the softmax over the vocabulary is taken at the chosen positions only, as BERT's own
    pre-training gathers them: the model's call stops at the masked-LM head's input $h_t$ and the
    next-sentence probabilities, and the loss applies the head's last layer (``mlm``: $W h_t + b$ and the
    softmax) to the chosen $h_t$, at most one position in ``BUDGET`` of the batch (15 % of the words are
    chosen, fewer positions hold words; a batch with more leaves the rest out of its loss). Over a
    vocabulary of 10,000 words that layer is most of the model's work at every position; evaluation,
    prediction and serving compute it everywhere, ``(B, T, V)``.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.masking_seed = keras.random.SeedGenerator(name="masking_seed")
        self.mlm_loss_tracker = keras.metrics.Mean(name="mlm_loss")
        self.nsp_loss_tracker = keras.metrics.Mean(name="nsp_loss")

    def call(self, inputs, training=None, mask=None):
        if not training:
            return super().call(inputs, training=training, mask=mask)
        if "_to_heads" not in self.__dict__:
            # The same layers up to both heads' inputs; kept in a plain function, so Keras does not track (and
            # save) its layers a second time.
            to_heads = keras.Model(self.inputs, [self.get_layer(MLM_HEAD).input, self.get_layer(NSP_HEAD).output])
            self.__dict__["_to_heads"] = lambda ids: to_heads(ids, training=True)
        return self.__dict__["_to_heads"](inputs)

    def train_step(self, *args):
        *state, data = args  # TensorFlow's step takes the batch; JAX's takes the model's state first
        x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)
        if not state:
            return super().train_step(self.fresh_batch(x, y, sample_weight))
        # JAX's step is a pure function: the seed generator's state is one of the non-trainable values it
        # is given, so the masking draws from it inside a stateless scope and hands its new value on.
        trainable, non_trainable, optimizer_variables, metrics_variables = state[0]
        with keras.StatelessScope(state_mapping=list(zip(self.non_trainable_variables, non_trainable))) as scope:
            batch = self.fresh_batch(x, y, sample_weight)
        non_trainable = [scope.get_current_value(v) for v in self.non_trainable_variables]
        return super().train_step((trainable, non_trainable, optimizer_variables, metrics_variables), batch)

    def fresh_batch(self, x, y, sample_weight):
        """The batch paired anew, 15 % of its candidate words masked anew, and the targets of only those."""
        x, y = draw_pairs(x, y, self.masking_seed, sep_id=SEP_ID)
        masked, chosen = mask_tokens(x, word_targets(y), self.masking_seed, vocab_size=self.outputs[0].shape[-1],
                                     mask_id=MASK_ID, first_word_id=FIRST_WORD_ID)
        targets = ops.concatenate([y[:, :1], ops.where(chosen, y, PAD_ID)[:, 1:]], axis=1)
        return masked, targets, sample_weight

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        y = ops.cast(y, "int32")
        chosen = word_targets(y)
        if isinstance(y_pred, (list, tuple)):  # training: h and the next-sentence probabilities
            h, nsp = y_pred
            words, targets, weights = chosen_positions(h, y, chosen)
            p_word = ops.take_along_axis(self.get_layer(MLM_HEAD)(words), targets[:, None], axis=-1)[:, 0]
        else:  # (B, T, V), the next-sentence probabilities at t = 0
            nsp = y_pred[:, 0, :2]
            p_word = ops.reshape(ops.take_along_axis(y_pred, y[..., None], axis=-1), (-1,))
            weights = ops.reshape(chosen, (-1,))
        p_next = ops.take_along_axis(nsp, y[:, :1], axis=-1)[:, 0]
        weights = ops.cast(weights, p_word.dtype)
        mlm = -ops.sum(ops.log(ops.clip(p_word, EPSILON, 1.0)) * weights) / ops.maximum(ops.sum(weights), 1.0)
        nsp = -ops.mean(ops.log(ops.clip(p_next, EPSILON, 1.0)))
        self.mlm_loss_tracker.update_state(mlm)
        self.nsp_loss_tracker.update_state(nsp)
        return mlm + nsp + sum(self.losses)


BUDGET = 5  # a training batch's masked-LM loss reads at most one position in 5


def word_targets(y):
    """``(B, T)`` bools: the positions t >= 1 with a word to guess (or, in a training batch, a candidate)."""
    return ops.concatenate([ops.zeros_like(y[:, :1], dtype="bool"), ops.not_equal(y[:, 1:], PAD_ID)], axis=1)


def chosen_positions(h, y, chosen):
    """The chosen positions' vectors ``(K, d)``, their targets ``(K,)`` and weights ``(K,)`` (1: chosen, 0: a filler).

    K is one in ``BUDGET`` of the batch's positions, so every batch of a size has one shape; the chosen positions
    come first.
    """
    vectors = ops.reshape(h, (-1, ops.shape(h)[-1]))
    flags = ops.reshape(ops.cast(chosen, "float32"), (-1,))
    count = ops.shape(flags)[0]
    _, picked = ops.top_k(flags, k=(count + BUDGET - 1) // BUDGET)
    return ops.take(vectors, picked, axis=0), ops.take(ops.reshape(y, (-1,)), picked), ops.take(flags, picked)
