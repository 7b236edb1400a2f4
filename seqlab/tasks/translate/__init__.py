"""Translate: a source sequence in, a target sequence out, by an encoder-decoder.

``task`` registers the task; ``tokens`` holds the run's two tokenisers and its
inputs, ``scores`` the test metrics (exact match, token accuracy, BLEU, chrF),
``free_running`` the validation loss of the decoder fed its own tokens. The
SavedModel's ``translate`` endpoint is ``seqlab.tasks.translate.serving``;
translating texts with a run, ``seqlab.tasks.translate.translation``.
"""

from seqlab.data.text_pairs import EOS_ID, START_ID
from seqlab.tasks.translate.free_running import FREE_RUNNING
from seqlab.tasks.translate.tokens import (
    TARGET_TOKENIZER_FILE, as_target_ids, target_text, target_tokenizer_of, translate_inputs,
)

__all__ = [
    "EOS_ID",
    "FREE_RUNNING",
    "START_ID",
    "TARGET_TOKENIZER_FILE",
    "as_target_ids",
    "target_text",
    "target_tokenizer_of",
    "translate_inputs",
]
