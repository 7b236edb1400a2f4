r"""Masked_lm: BERT's pre-training, a masked language model and next-sentence prediction at once (seed 002).

Input: the ids of ``[CLS] A [SEP] B [SEP]`` ``(B, T)`` (``seqlab.data.bert_pretraining``).
Output: one ``(B, T, V)`` array of probabilities, aligned with the input.
At t >= 1 it is the masked-LM distribution over the vocabulary; at the
[CLS] position (t = 0) it is the next-sentence head's two probabilities
(random, next) followed by zeros, so one output carries both heads (a run's
model has one output) and the targets ``y`` ``(B, T)`` line up with it
(``y[:, 0]`` the next-sentence label, ``y[:, t]`` the token to guess, 0 where
none). The loss is the sum of the two cross-entropies:

$$ \mathcal{L} = -\frac{1}{|M|}\sum_{(n,t) \in M} \log p(x^{(n)}_t \mid \tilde x^{(n)})
   \;-\; \frac{1}{N}\sum_n \log p(\mathrm{IsNext}^{(n)} \mid \tilde x^{(n)}) $$

with M the chosen positions (15 % of the words, drawn anew at every training
batch by the model's training step, ``seqlab.models.bert_layers.MaskedLMModel``).

Judged on the test split (masked once by its seed): the masked-LM accuracy
and top-5 accuracy over the chosen positions, and the next-sentence
accuracy, against the unigram baseline (always the most frequent training
word) and the majority of the next-sentence labels. The masked-LM
cross-entropy is the validation loss of every epoch (``history.json``).

The run keeps its tokeniser (with ``[CLS]``, ``[SEP]``, ``[MASK]``) as
``tokenizer.json``; the architecture builds the whole model (no task head).
The SavedModel adds ``fill``, raw strings with ``[MASK]`` in, the top words
of every blank out (``seqlab.tasks.masked_lm.serving``); ``seqlab.tasks.masked_lm.fill_in`` fills in
blanks with a run, ``seqlab.tasks.masked_lm.contextual`` reads its contextual embeddings, and a
``classify`` run of ``bert`` fine-tunes its encoder (``pretrained``).
"""

from __future__ import annotations

import numpy as np

from seqlab.data.sequence_data import SequenceData
from seqlab.tasks.masked_lm.serving import FILL_ENDPOINT, export_fill
from seqlab.tasks.masked_lm.tokenizer import bert_tokenizer_of
from seqlab.tasks.metrics import Metric
from seqlab.tasks.task import Evaluation, Task, TextEndpoint, register_task
from seqlab.tasks.text_inputs import load_tokenizer, save_tokenizer, token_inputs
from seqlab.text import PAD_ID

MLM_ACCURACY = Metric("mlm_accuracy", "masked-LM accuracy", "%", higher_is_better=True, factor=100.0)
MLM_TOP5 = Metric("mlm_top5_accuracy", "masked-LM top-5 accuracy", "%", higher_is_better=True, factor=100.0)
NSP_ACCURACY = Metric("nsp_accuracy", "next-sentence accuracy", "%", higher_is_better=True, factor=100.0)
TOP_K = 5
PREDICT_BATCH = 64  # (64, T, V) probabilities at a time; only the top 5 per position are kept


def top_predictions(model, x: np.ndarray) -> dict[str, np.ndarray]:
    """The 5 most probable tokens at every position, ``ids`` and ``probabilities`` ``(N, T, 5)``, and
    ``is_next`` ``(N,)``, the next-sentence probability, in batches (the whole ``(N, T, V)`` would not fit)."""
    ids, probs, is_next = [], [], []
    for start in range(0, len(x), PREDICT_BATCH):
        p = np.asarray(model(x[start : start + PREDICT_BATCH], training=False))  # (b, T, V)
        top = np.argsort(-p[:, 1:], axis=-1)[..., :TOP_K]  # (b, T-1, 5); position 0 holds the NSP head
        ids.append(np.pad(top, ((0, 0), (1, 0), (0, 0))))
        probs.append(np.pad(np.take_along_axis(p[:, 1:], top, axis=-1), ((0, 0), (1, 0), (0, 0))))
        is_next.append(p[:, 0, 1])
    return {"ids": np.concatenate(ids).astype("int32"), "probabilities": np.concatenate(probs),
            "is_next": np.concatenate(is_next)}


def pretraining_scores(y: np.ndarray, top_ids: np.ndarray, is_next: np.ndarray) -> dict[str, float]:
    """Masked-LM accuracy and top-5 accuracy over the chosen positions (``y[:, 1:]`` not 0), next-sentence accuracy.

    ``top_ids`` ``(N, T, k)``: the guesses at every position, best first; ``is_next`` ``(N,)`` the predicted
    probability that B follows A.
    """
    chosen = np.zeros(y.shape, dtype=bool)
    chosen[:, 1:] = y[:, 1:] != PAD_ID
    targets = y[chosen]
    guesses = top_ids[chosen]  # (M, k)
    return {
        "mlm_accuracy": float(np.mean(guesses[:, 0] == targets)) if len(targets) else float("nan"),
        "mlm_top5_accuracy": float(np.mean((guesses == targets[:, None]).any(axis=1))) if len(targets) else
        float("nan"),
        "nsp_accuracy": float(np.mean((np.asarray(is_next) > 0.5) == (y[:, 0] == 1))),
    }


def evaluate_pretraining(data: SequenceData, outputs: dict) -> Evaluation:
    test, train = data.splits["test"], data.splits["train"]
    y = np.asarray(test.y)
    words = np.bincount(train.y[:, 1:].reshape(-1), minlength=bert_tokenizer_of(data).vocab_size)
    words[PAD_ID] = 0
    unigram = np.argsort(-words)[:TOP_K]  # the most frequent training words, best first
    majority = float(np.mean(train.y[:, 0]) >= 0.5)
    baselines = {"unigram_and_majority": pretraining_scores(
        y, np.broadcast_to(unigram, outputs["ids"].shape), np.full(len(y), majority))}
    metrics = {"model": pretraining_scores(y, outputs["ids"], outputs["is_next"]), "baselines": baselines}
    predictions = {"y_true": y, "y_pred": outputs["ids"][..., 0], "top_ids": outputs["ids"],
                   "top_probabilities": outputs["probabilities"], "is_next": outputs["is_next"], "origin": test.origin}
    return Evaluation(metrics, predictions)


MASKED_LM = register_task(
    Task(
        name="masked_lm",
        sequence_outputs=True,
        loss="sparse_categorical_crossentropy",  # the model's compute_loss splits it into its two heads
        metrics=(),
        evaluate=evaluate_pretraining,
        outputs=lambda meta: (meta.lookback, None),
        test_metrics=(MLM_ACCURACY, MLM_TOP5, NSP_ACCURACY),
        baselines="The unigram baseline guesses the most frequent training words for every blank; the next-sentence "
                  "baseline always answers the majority training label (about half are true continuations).",
        inputs=token_inputs,
        predict=top_predictions,
        save_assets=save_tokenizer,
        load_assets=load_tokenizer,
        export=export_fill,
        text_endpoint=TextEndpoint(FILL_ENDPOINT, example="the [MASK] sat on the mat", result='["top_tokens"]'),
        uses=("fill_in", "fine_tune"),
    )
)
