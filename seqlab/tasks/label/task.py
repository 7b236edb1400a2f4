"""Label: one class at every step (many-to-many aligned), e.g. the copy task, or a tag per token of a text.

Numbers or text in, as for classify (``seqlab.tasks.text_inputs``).

Head: ``Dense(C, softmax)`` on every step of the body's output sequence.
Judged per step (token accuracy, macro F1 over the tags, cross-entropy; a
text's padding left out, per-tag F1 under ``per_class``) against two memoryless
baselines: the majority class everywhere (training class frequencies), and
the class frequencies of each position t, which knows where the answers go
but not what they are (for the copy task: blanks, then a guess).
"""

from __future__ import annotations

import numpy as np

from seqlab.data.sequence_data import SequenceData
from seqlab.tasks.classify.task import class_evaluation, class_frequencies, class_head
from seqlab.tasks.label.answers import tag_answers
from seqlab.tasks.metrics import ACCURACY, CROSS_ENTROPY, MACRO_F1
from seqlab.tasks.task import Evaluation, Task, TextEndpoint, register_task
from seqlab.tasks.text_inputs import load_sequence_assets, save_sequence_assets, sequence_inputs, sequence_preprocessor
from seqlab.tasks.text_serving import TEXT_ENDPOINT, export_sequence


def evaluate_labelling(data: SequenceData, probabilities: np.ndarray) -> Evaluation:
    train, classes = data.splits["train"], len(data.classes)
    real = train.mask if train.mask is not None else np.ones(train.y.shape, dtype=bool)  # padding never counts
    overall = class_frequencies(train.y[real], classes)  # (C,)
    majority = np.broadcast_to(overall, probabilities.shape)  # (N, T, C)
    by_position = np.stack([  # (T, C); a position that is padding in every training text: the overall frequencies
        class_frequencies(train.y[real[:, t], t], classes) if real[:, t].any() else overall
        for t in range(train.y.shape[1])
    ])
    memoryless = np.broadcast_to(by_position, probabilities.shape)  # (N, T, C)
    test = data.splits["test"]
    return class_evaluation(test, probabilities, {"majority": majority, "memoryless": memoryless}, mask=test.mask)


LABEL = register_task(
    Task(
        name="label",
        sequence_outputs=True,
        loss="sparse_categorical_crossentropy",
        metrics=("accuracy",),
        head=class_head,
        evaluate=evaluate_labelling,
        test_metrics=(ACCURACY, MACRO_F1, CROSS_ENTROPY),
        outputs=lambda meta: (meta.horizon, len(meta.classes or ())),
        baselines="Majority predicts the most frequent class everywhere; memoryless the most frequent at each step.",
        inputs=sequence_inputs,
        preprocessor=sequence_preprocessor,
        save_assets=save_sequence_assets,
        load_assets=load_sequence_assets,
        export=export_sequence,
        text_endpoint=TextEndpoint(TEXT_ENDPOINT),
        text_answer=tag_answers,
    )
)
