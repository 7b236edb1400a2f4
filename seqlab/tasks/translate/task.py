r"""Translate: a source sequence in, a target sequence out, by an encoder-decoder (seeds 000 and 002).

Inputs: the source ids ``(B, S)`` (the run's source tokeniser) and the decoder's input ``(B, L)``,
``[START]`` and the target shifted right (teacher forcing). Output: the next target token's
probabilities at every step ``(B, L, V)``; the loss is the cross-entropy of the true tokens over the real
target steps, ``[EOS]`` included (the decoder masks the padding):

$$ \mathcal{L} = -\frac{1}{\sum_n T_n} \sum_n \sum_{t=1}^{T_n} \log p(y_t^{(n)} \mid y_{<t}^{(n)}, x^{(n)}) $$

The test predictions are greedy translations: the model's own previous tokens fed back, from ``[START]``
to ``[EOS]``. They are judged by exact match (the whole output right), token accuracy (position by
position over the reference's tokens and ``[EOS]``), BLEU (over characters when the target's tokens are
characters) and chrF (sacrebleu, 0-100), against the baseline
that copies the source unchanged (a text source; an image has none).

Every epoch also logs ``val_free_running_loss``: the validation loss with the decoder fed its own previous
tokens, as it is when it translates; the gap to the teacher-forced ``val_loss`` is the exposure bias that
scheduled sampling (``teacher_forcing`` below 1) narrows.

The run keeps both tokenisers (``tokenizer.json`` for the source, ``target_tokenizer.json``); every
architecture builds its whole model (``seqlab.models.seq2seq``), so the task has no head.
"""

from __future__ import annotations

import numpy as np

from seqlab.data.sequence_data import SequenceData
from seqlab.data.text_pairs import EOS_ID, START_ID
from seqlab.tasks.metrics import BLEU, CHRF, EXACT_MATCH, TOKEN_ACCURACY
from seqlab.tasks.task import Evaluation, Task, TextEndpoint, register_task
from seqlab.tasks.translate.free_running import free_running_callbacks
from seqlab.tasks.translate.scores import bleu, chrf, exact_match, token_accuracy
from seqlab.tasks.translate.tokens import (
    as_target_ids, load_tokenizers, save_tokenizers, target_text, target_tokenizer_of, translate_inputs,
)
from seqlab.tasks.translate.serving import TRANSLATE_ENDPOINT, export_translator
from seqlab.text import PAD_ID

def translation_scores(references: list[str], hypotheses: list[str], y_true: np.ndarray, y_pred: np.ndarray,
                       characters: bool) -> dict:
    real = np.asarray(y_true) != PAD_ID  # the reference's tokens and its [EOS]
    return {
        "exact_match": exact_match(references, hypotheses),
        "token_accuracy": token_accuracy(y_true, y_pred, real),
        "bleu": bleu(references, hypotheses, tokenize="char" if characters else "13a"),
        "chrf": chrf(references, hypotheses),
    }


def evaluate_translation(data: SequenceData, y_pred: np.ndarray) -> Evaluation:
    test, target = data.splits["test"], target_tokenizer_of(data)
    y_true = np.asarray(test.y, dtype="int32")
    references = [target_text(target, row) for row in y_true]
    hypotheses = [target_text(target, row) for row in y_pred]
    characters = target.kind == "char"  # BLEU over characters, as the model writes them
    metrics = {"model": translation_scores(references, hypotheses, y_true, y_pred, characters), "baselines": {}}
    predictions = {"y_true": y_true, "y_pred": np.asarray(y_pred, dtype="int32"), "origin": test.origin}
    if data.tokenizer is not None:  # a text source can be copied; an image cannot
        sources = [data.tokenizer.decode([i for i in row if i != PAD_ID]) for row in test.x]
        copies = np.stack([as_target_ids(target, s, y_true.shape[1]) for s in sources]) if len(sources) else y_true
        metrics["baselines"]["copy_source"] = translation_scores(references, sources, y_true, copies, characters)
        predictions["baseline_copy_source"] = copies
    return Evaluation(metrics, predictions)


def greedy_predict(model, inputs) -> np.ndarray:
    """Greedy translations of the test sources (the teacher-forced input is not used)."""
    from seqlab.tasks.translate.translation import greedy_targets

    sources = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
    return greedy_targets(model, np.asarray(sources), START_ID, EOS_ID, model.inputs[1].shape[1])


TRANSLATE = register_task(
    Task(
        name="translate",
        sequence_outputs=True,
        loss="sparse_categorical_crossentropy",
        metrics=(),
        evaluate=evaluate_translation,
        outputs=lambda meta: (meta.horizon, None),
        test_metrics=(EXACT_MATCH, TOKEN_ACCURACY, BLEU, CHRF),
        baselines="The copy baseline writes a text source unchanged (what a model that learned nothing might do); "
                  "a source of numbers, such as an image, has none.",
        inputs=translate_inputs,
        predict=greedy_predict,
        save_assets=save_tokenizers,
        load_assets=load_tokenizers,
        export=export_translator,
        callbacks=free_running_callbacks,
        text_endpoint=TextEndpoint(TRANSLATE_ENDPOINT),
        uses=("translate",),
    )
)
