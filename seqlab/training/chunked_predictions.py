"""The test split's predictions in chunks, each one reported (``seqlab.progress``): evaluation shows its progress.

A task's ``predict`` runs on chunks of the test inputs, each a whole number of
``EVAL_BATCH_SIZE`` batches, sized to take about ``CHUNK_SECONDS`` at the rate
of the chunk before: the first is one batch (it also compiles the step), each
next one at most four times the one before. The last chunk is padded to whole
batches with copies of its last row, whose outputs are dropped: every batch has
one shape, so the prediction step is traced and compiled once (a partial batch
compiles it again: 1.8 of the 5.5 CPU seconds of the GPT lesson's predictions,
measured). The outputs are joined as one call on all the inputs would return them.
"""

from __future__ import annotations

import time

import keras
import numpy as np

from seqlab.progress import report
from seqlab.tasks.task import EVAL_BATCH_SIZE

CHUNK_SECONDS = 1.0  # a report about every second: the dashboard polls every half second
PREDICTING = "predicting the test split"


def next_chunk(rows: int, seconds: float) -> int:
    """The rows of the chunk after one of ``rows`` that took ``seconds``."""
    batches = int(rows / max(seconds, 1e-3) * CHUNK_SECONDS) // EVAL_BATCH_SIZE
    return EVAL_BATCH_SIZE * min(max(batches, 1), 4 * rows // EVAL_BATCH_SIZE)


def whole_batches(chunk, rows: int):
    """``chunk`` (of ``rows`` rows) with its last row repeated up to a whole number of ``EVAL_BATCH_SIZE`` batches."""
    extra = -rows % EVAL_BATCH_SIZE
    return keras.tree.map_structure(lambda a: np.concatenate([a, np.repeat(a[-1:], extra, axis=0)]), chunk)


def predicted_in_chunks(predict, model: keras.Model, inputs):
    """``predict(model, inputs)`` (a task's ``predict``) done chunk by chunk, reporting the sequences done."""
    total = len(keras.tree.flatten(inputs)[0])
    parts, done, rows = [], 0, EVAL_BATCH_SIZE
    report(PREDICTING, 0, total, "sequences")
    while not parts or done < total:
        started, real = time.monotonic(), min(rows, total - done)
        chunk = whole_batches(keras.tree.map_structure(lambda a: a[done : done + real], inputs), real)
        parts.append(keras.tree.map_structure(lambda a: a[:real], predict(model, chunk)))
        done += real
        report(PREDICTING, done, total, "sequences")
        rows = next_chunk(rows, time.monotonic() - started)
    return keras.tree.map_structure(lambda *chunks: np.concatenate(chunks), *parts)
